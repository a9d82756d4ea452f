import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, IsoDate, JsonObject, NoInput, Slug, Tick, Uid } from '../../src/registry/common-schemas.js';
import { errors, UNKNOWN_KEY_MESSAGE } from '../../src/errors.js';
import { badgeSvg } from '../../src/application/badge-svg.js';
import type { UpdateManifest } from '../../src/domain/manifest/manifest.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const Artifact = wireShape<UpdateManifest['artifacts'][number]>()(
  z.object({
    name: z.string().describe('Path inside its folder, e.g. "skills/getting-started.md"'),
    path: z.string().describe('Path inside the server package, e.g. "resources/skills/getting-started.md"'),
    sha256: Hex64,
    size_bytes: z.number().int().min(0),
    registry_version: z.string().describe('Registry version in which this artifact last changed'),
  }),
);

/** How many owned slugs `whoami` lists; `machines_owned_total` counts them all. */
const OWNED_LISTED = 100;

const Whoami = z.object({
  ok: z.literal(true),
  authenticated: z.boolean().describe('False when no key, or a key this server does not know, was sent'),
  uid: Uid.nullable().describe('Your identity id, the {uid} of the agent, plan and sandbox paths; null when anonymous'),
  credential: z.enum(['none', 'user-key', 'machine-key', 'session', 'site']).describe('What you authenticated with (`site`: a write through a site proxy)'),
  key_id: z.string().nullable().describe('Id of the key in use (as listed and revoked by the key tools); null without a key'),
  scope: z.enum(['read', 'write', 'admin']).nullable().describe('Scope of a developer key; null for other credentials'),
  machine: Slug.nullable().describe('The machine a machine or developer key belongs to; null for a user key or session'),
  machines_owned: z.array(Slug).describe(`Slugs of the machines you own, oldest first (at most ${OWNED_LISTED})`),
  machines_owned_total: z.number().int().min(0),
  note: z.string().optional().describe('What to do next when anonymous'),
});

export const accountTool = defineTool({
  name: 'core_account',
  toolset: 'platform',
  title: 'Keys, updates and general',
  description:
    'Getting started and general account endpoints: mint a free demo key (the first step before spinning up a machine), ask who you are, read the signed update manifest, track an app event, send a contact message, and fetch the conformance badge.',
  actions: [
    defineAction({
      id: 'identity.mintDemoKey',
      action: 'mint_demo_key',
      method: 'POST',
      path: '/api/demo-key/mint',
      auth: 'public',
      area: 'identity',
      summary: 'Mints a free demo key and a new uid; the raw key is shown only in this answer because only its hash is stored.',
      input: z.object({
        label: z.string().max(100).optional().describe('A note to tell this key from others'),
      }),
      output: z.object({
        ok: z.literal(true),
        key: z.string().describe('The raw key, "core_<random>"; shown once, keep it secret'),
        key_id: z.string(),
        uid: Uid,
        created_at: IsoDate,
        note: z.string().describe('Reminder that only the SHA-256 of the key is stored and it cannot be shown again'),
      }),
      handler: async ({ label }, { services, clientIp }) => ({
        ok: true as const,
        ...(await services.identity.mintDemoKey(label, clientIp)),
        note: 'Only the SHA-256 of this key is stored: it cannot be shown again. Send it with every request to this server as the header "Authorization: Bearer <key>" (or "X-API-Key: <key>").',
      }),
    }),
    defineAction({
      id: 'identity.describeCaller',
      action: 'whoami',
      method: 'GET',
      path: '/api/whoami',
      auth: 'public',
      area: 'identity',
      summary:
        'Says who you are as this server sees your credential: uid, key id and scope, the machine a machine key belongs to, and the machines you own; anonymous, with what to do, when no key or an unknown key was sent.',
      input: NoInput,
      output: Whoami,
      idempotent: true,
      handler: async (_input, { services, caller }) => {
        const owned = caller.uid === null ? { slugs: [], total: 0 } : await services.machines.ownedBy(caller.uid, OWNED_LISTED);
        const note =
          caller.uid !== null
            ? undefined
            : caller.unknownCredential
              ? UNKNOWN_KEY_MESSAGE
              : 'No key was sent: mint one with POST /api/demo-key/mint (core_account mint_demo_key) and send it as "Authorization: Bearer <key>" (over stdio, the session that mints it uses it at once).';
        return {
          ok: true as const,
          authenticated: caller.uid !== null,
          uid: caller.uid,
          credential: caller.credential,
          key_id: caller.keyId ?? null,
          scope: caller.scope ?? null,
          machine: caller.machine ?? null,
          machines_owned: owned.slugs,
          machines_owned_total: owned.total,
          ...(note === undefined ? {} : { note }),
        };
      },
    }),
    defineAction({
      id: 'identity.getUpdateManifest',
      action: 'update_manifest',
      method: 'GET',
      path: '/api/updates/manifest',
      auth: 'bearer',
      area: 'identity',
      summary:
        "Returns the signed update manifest: artifacts with SHA-256 digests and registry_version, signed with the node's Ed25519 key; verify it against a pinned public key before pulling changed artifacts.",
      input: z.object({
        since_version: z.string().max(128).optional().describe('Only artifacts changed after this registry_version'),
      }),
      output: z.object({
        ok: z.literal(true),
        manifest: z
          .object({
            registry_version: z.string(),
            issued_at: IsoDate,
            issued_tick: Tick,
            since_version: z.string().nullable().describe('The since_version this list was filtered from; null for the full list'),
            artifacts: z.array(Artifact),
            removed: z
              .array(z.object({ path: z.string(), registry_version: z.string().describe('Version that removed it') }))
              .describe('Artifacts that no longer exist'),
          })
          .describe('The signed document: its canonical JSON is what the signature covers'),
        signature: z.object({
          alg: z.literal('Ed25519'),
          key_id: z.string().describe('Id of the node public key'),
          value: z.string().describe('Signature over the canonical JSON of `manifest`, base64'),
        }),
      }),
      idempotent: true,
      handler: async ({ since_version }, { services, caller }) => {
        if (caller.credential !== 'user-key' && caller.credential !== 'session') {
          throw errors.forbidden('The update manifest is for a user: send your user key (POST /api/demo-key/mint), not a machine or developer key');
        }
        return { ok: true as const, ...(await services.updateManifest.get(since_version)) };
      },
    }),
    defineAction({
      id: 'apps.trackEvent',
      action: 'track_app',
      method: 'POST',
      path: '/api/apps/track',
      auth: 'bearer',
      area: 'platform',
      summary: 'Records an app usage event on a machine (or of the machine key in use).',
      input: z.object({
        app: z.string().min(1).max(64),
        event: z
          .string()
          .regex(/^[a-z][a-z0-9_.]{0,63}$/)
          .describe('Event name, e.g. "opened"'),
        slug: Slug.optional().describe('Machine whose log records the event; the machine of a machine key when absent'),
        properties: JsonObject.optional().describe('Free-form details'),
      }),
      output: z.object({ ok: z.literal(true), audit_row_id: z.string(), tick: Tick }),
      handler: async (input, { services, caller }) => ({ ok: true as const, ...(await services.general.appEvents.track(input, caller)) }),
    }),
    defineAction({
      id: 'platform.sendContact',
      action: 'contact',
      method: 'POST',
      path: '/api/contact',
      auth: 'public',
      area: 'platform',
      summary: "Sends a message to the node's operators. Rate limited; returns its id.",
      input: z.object({
        name: z.string().min(1).max(100),
        email: z.email().max(254).describe('Where a reply should go'),
        subject: z.string().max(200).optional(),
        message: z.string().min(1).max(5000),
      }),
      output: z.object({ ok: z.literal(true), id: z.string(), received_at: IsoDate }),
      handler: async (input, { services, caller, clientIp }) => ({
        ok: true as const,
        ...(await services.general.contact.send(input, { uid: caller.uid, ip: clientIp })),
      }),
    }),
    defineAction({
      id: 'platform.getConformanceBadge',
      action: 'badge',
      method: 'GET',
      path: '/api/conformance/badge.svg',
      auth: 'public',
      area: 'platform',
      summary: "Returns an SVG badge; it shows how many operations pass the node's built-in self-check.",
      input: NoInput,
      output: z.string(),
      response: { kind: 'raw', contentType: 'image/svg+xml' },
      idempotent: true,
      handler: async (_input, { app, setHeader }) => {
        const report = await app.selfCheck.report().catch(() => undefined);
        setHeader?.('Cache-Control', report ? 'public, max-age=300' : 'no-store');
        return { contentType: 'image/svg+xml', body: badgeSvg(report) };
      },
    }),
  ],
});
