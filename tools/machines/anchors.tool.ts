import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Hex64, Limit, Slug, Tick } from '../../src/registry/common-schemas.js';
import { MachineSlug } from './machines.schemas.js';
import type { AnchorView } from '../../src/domain/chain/anchor.js';
import type { ConfigView as AnchorConfigView } from '../../src/domain/chain/anchors.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

// A private child is known to its mother only by id_hash, an HMAC of slug and genesis_hash under a node
// secret, so a mother can list what it holds without learning slugs, and nobody can test a guessed slug
// against it; verify-anchor recomputes it for readers of the machine.
const IdHash = Hex64.describe("Pseudonymous machine id (get_config shows your machine's)");
const MotherSlug = Slug.describe('Mother machine recording the anchors');

const Anchor = wireShape<AnchorView>()(
  z.object({
    anchor_id: z.string(),
    id_hash: Hex64,
    head_seq: z.number().int().min(0),
    head_tick: Tick,
    head_hash: Hex64.describe("The child's head state_hash being anchored"),
    anchored_tick: Tick.describe('Tick the mother recorded it'),
    mother_seq: z.number().int().min(0).describe("seq of the anchor row in the mother's chain"),
  }),
);

const AnchorConfig = wireShape<AnchorConfigView>()(
  z.object({
    slug: z.string(),
    enabled: z.boolean(),
    mother_slug: z.string().nullable(),
    every_ticks: z.number().int().min(1).describe('How often the head is anchored'),
    key_id: z.string().nullable().describe('Id of the current anchor key'),
    public_key: z.string().nullable().describe('Ed25519 public key (base64url) that signs anchors'),
    id_hash: Hex64.nullable().describe('The pseudonym anchors of this machine carry; give it to whoever should verify them'),
    last_anchor_tick: Tick.nullable(),
    last_anchor_seq: z.number().int().min(0).nullable().describe('Child head seq covered by the last anchor'),
    last_error: z.string().nullable().describe('Why the last periodic anchor failed, if it did'),
  }),
);

export const anchorsTool = defineTool({
  name: 'core_anchors',
  toolset: 'machines',
  title: 'Chain anchors',
  description:
    "Anchors chain heads into other machines so rewritten history is detectable. A child machine's signed head is recorded in a mother machine, so a rewritten or truncated history shows; verify checks anchors. Private machines appear at the mother only under a pseudonymous id_hash.",
  actions: [
    defineAction({
      id: 'chain.anchorHead',
      action: 'anchor',
      method: 'POST',
      path: '/api/chain/{motherSlug}/anchor',
      auth: 'public',
      area: 'chain',
      summary: "Records a child's signed chain head; the signature by the child's current anchor key is the credential.",
      input: z.object({
        motherSlug: MotherSlug,
        id_hash: IdHash,
        head_seq: z.number().int().min(0).describe("seq of the child's head row"),
        head_tick: Tick.describe("Tick of the child's head row"),
        head_hash: Hex64.describe("state_hash of the child's head row"),
        key_id: z.string().min(1).max(128).describe("Id of the child's anchor key"),
        signature: z.string().min(1).max(256).describe('Ed25519 signature (base64url) over "anchor|<motherSlug>|<id_hash>|<head_seq>|<head_tick>|<head_hash>"'),
      }),
      output: z.object({
        ok: z.literal(true),
        anchor_id: z.string(),
        tick: Tick,
        transition_id: z.string(),
        seq: z.number().int().min(0).describe("seq of the anchor row in the mother's chain"),
        state_hash: Hex64,
      }),
      handler: async ({ motherSlug, ...claim }, { services }) => services.anchors.anchor(motherSlug, claim),
    }),
    defineAction({
      id: 'chain.listAnchoredMachines',
      action: 'anchored',
      method: 'GET',
      path: '/api/chain/{motherSlug}/anchored',
      auth: 'public',
      area: 'chain',
      summary: 'Lists the machines anchoring here; with anchor counts and latest anchored head.',
      input: z.object({ motherSlug: MotherSlug }),
      output: z.object({
        ok: z.literal(true),
        mother_slug: z.string(),
        machines: z.array(
          z.object({
            id_hash: Hex64,
            anchor_count: z.number().int().min(0),
            first_tick: Tick,
            last_tick: Tick,
            last_head_seq: z.number().int().min(0),
          }),
        ),
      }),
      idempotent: true,
      handler: async ({ motherSlug }, { services, caller }) => ({
        ok: true as const,
        mother_slug: motherSlug,
        machines: await services.anchors.anchored(motherSlug, caller),
      }),
    }),
    defineAction({
      id: 'chain.listAnchors',
      action: 'list',
      method: 'GET',
      path: '/api/chain/{motherSlug}/anchors',
      auth: 'public',
      area: 'chain',
      summary: 'Lists the anchors recorded by this mother; newest first, optionally for one id_hash.',
      input: z.object({
        motherSlug: MotherSlug,
        id_hash: IdHash.optional(),
        limit: Limit.default(50),
        cursor: Cursor.optional(),
      }),
      output: z.object({ ok: z.literal(true), mother_slug: z.string(), anchors: z.array(Anchor), next_cursor: z.string().nullable() }),
      idempotent: true,
      handler: async ({ motherSlug, ...query }, { services, caller }) => ({
        ok: true as const,
        mother_slug: motherSlug,
        ...(await services.anchors.list(motherSlug, caller, query)),
      }),
    }),
    defineAction({
      id: 'chain.getAnchorConfig',
      action: 'get_config',
      method: 'GET',
      path: '/api/chain/state-machines/{slug}/anchor-config',
      auth: 'bearer',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Reads the anchoring settings: mother, cadence, current anchor public key and last anchor.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({ ok: z.literal(true), config: AnchorConfig }),
      idempotent: true,
      handler: async ({ slug }, { services }) => ({ ok: true as const, config: await services.anchors.getConfig(slug) }),
    }),
    defineAction({
      id: 'chain.setAnchorConfig',
      action: 'set_config',
      method: 'PUT',
      path: '/api/chain/state-machines/{slug}/anchor-config',
      auth: 'bearer',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Replaces the anchoring settings; when enabled the server signs and anchors the head into the mother every every_ticks ticks.',
      input: z.object({
        slug: MachineSlug,
        enabled: z.boolean().describe('Periodic anchoring on or off'),
        mother_slug: Slug.describe('Machine to anchor into; must differ from slug'),
        every_ticks: z.number().int().min(1).max(1_000_000).default(1287).describe('Anchor cadence in ticks'),
      }),
      output: z.object({ ok: z.literal(true), config: AnchorConfig }),
      idempotent: true,
      handler: async ({ slug, ...input }, { services, caller }) => ({
        ok: true as const,
        config: await services.anchors.setConfig(slug, input, caller),
      }),
    }),
    defineAction({
      id: 'chain.rotateAnchorKey',
      action: 'rotate_key',
      method: 'POST',
      path: '/api/chain/state-machines/{slug}/anchor-key/rotate',
      auth: 'bearer',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Rotates the anchor signing key; the new Ed25519 key is kept server-side, its id and public key are returned, and later anchors must use it.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        key_id: z.string(),
        public_key: z.string().describe('Ed25519 public key, base64url'),
        previous_key_id: z.string().nullable(),
        rotated_tick: Tick,
      }),
      destructive: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, ...(await services.anchors.rotateKey(slug, caller)) }),
    }),
    defineAction({
      id: 'chain.verifyAnchor',
      action: 'verify',
      method: 'GET',
      path: '/api/chain/verify-anchor',
      auth: 'public',
      area: 'chain',
      summary:
        'Reports whether and where a machine is anchored; recomputes id_hash from slug and genesis_hash (a machine you can read) or takes id_hash, and gives its latest anchored head.',
      input: z.object({
        slug: Slug.optional().describe('Machine slug (one you can read); give with genesis_hash'),
        genesis_hash: Hex64.optional().describe("The machine's genesis_hash; give with slug"),
        id_hash: IdHash.optional().describe('Alternative to slug + genesis_hash'),
      }),
      output: z.object({
        ok: z.literal(true),
        valid: z.boolean().describe('Anchored where you can read it, hashes matching, and every anchored head still in the chain'),
        reason: z.string().nullable().describe('The first check that failed; null when valid'),
        id_hash: Hex64.describe('The id hash that was looked up'),
        recomputed: z.boolean().describe('True when id_hash was computed from slug and genesis_hash'),
        match: z
          .boolean()
          .nullable()
          .describe(
            'With slug, genesis_hash and id_hash: whether the recomputed hash equals id_hash; with slug and genesis_hash of a machine you can read: whether genesis_hash is its own; null otherwise',
          ),
        anchored: z.boolean(),
        anchors: z
          .array(
            Anchor.extend({
              mother_slug: z.string(),
              head_matches: z.boolean().nullable().describe("Whether the machine's chain still holds the anchored head; null when you cannot read it"),
            }),
          )
          .describe('Latest anchor per mother'),
      }),
      idempotent: true,
      handler: async (query, { services, caller }) => ({ ok: true as const, ...(await services.anchors.verify(query, caller)) }),
    }),
  ],
});
