import { errors, type CoreError } from '../errors.js';
import type { Operation } from './registry.js';

/**
 * Renames an operation's input aliases (`ActionDef.aliases`: the spec's name for a field declared under
 * another, e.g. `windowTicks` for `window_ticks`) to the declared names, so every transport accepts both.
 * Giving both names is refused: the caller meant one value. Inputs without aliases come back unchanged.
 */
export function applyAliases(op: Operation, raw: unknown): unknown | CoreError {
  const aliases = op.def.aliases;
  if (!aliases || typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  let out: Record<string, unknown> | undefined;
  for (const alias in aliases) {
    if (!Object.hasOwn(raw, alias)) continue;
    const name = aliases[alias]!;
    if (Object.hasOwn(raw, name)) {
      return errors.validation(`Give "${name}" or its alias "${alias}", not both`, {
        issues: [{ path: alias, message: `alias of "${name}", which is also given`, code: 'duplicate_alias' }],
      });
    }
    out ??= { ...(raw as Record<string, unknown>) };
    out[name] = out[alias];
    delete out[alias];
  }
  return out ?? raw;
}
