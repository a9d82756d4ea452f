import { z } from 'zod';
import type { MachineStatus as MachineStatusName, RoleGrant } from '../domain/chain/machine.js';
import { wireShape } from './wire-shape.js';

/**
 * Schemas shared by many tools. Schemas describe JSON values; the REST layer coerces query strings
 * to the declared types before validation.
 */

export const Slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'a slug is 1-64 characters of a-z, 0-9 and "-", not starting or ending with "-"')
  .describe('Machine slug')
  // The explorer's "Try it" and OpenAPI readers start from it; the tool descriptors leave examples out.
  .meta({ examples: ['my-first-machine'] });

export const Uid = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'a uid is letters, digits, "_", ".", ":" or "-"')
  .describe('Identity id (uid)');

export const Tick = z.number().int().min(0).describe('Tick number (floor(unix_ms / 777))');

export const Id = z.string().min(1).max(128).describe('Identifier');

export const Hex64 = z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hexadecimal characters (a SHA-256 digest)');

export const Limit = z.number().int().min(1).max(1000).describe('Page size');

export const Cursor = z.string().max(512).describe('`next_cursor` of the previous page');

export const IsoDate = z.iso.datetime({ offset: true }).describe('ISO-8601 date-time');

export const MachineRole = wireShape<RoleGrant['role']>()(z.enum(['admin', 'operator', 'viewer']));

export const MachineStatus = wireShape<MachineStatusName>()(z.enum(['active', 'paused', 'archived']));

/** Free-form JSON object (payloads, definitions, state). */
export const JsonObject = z.record(z.string(), z.unknown());

/** Most answers carry `ok: true`; errors never reach an output schema. */
export const Ok = z.object({ ok: z.literal(true) });

/** Output of an operation whose area is not built yet: the declared shape is the contract for later. */
export const Page = <T extends z.ZodType>(item: T) => z.object({ ok: z.literal(true), items: z.array(item), next_cursor: z.string().nullable() });

export const NoInput = z.object({});
