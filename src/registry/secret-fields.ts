import { z } from 'zod';

/**
 * The output rule for secret fields. A field declared with `Secret(...)` is accepted in input and never
 * answered: the pipeline removes it from every operation's output (REST, MCP and `core_http` alike),
 * so no service has to remember to. JSON Schema shows it as `writeOnly`. Nobody reads a secret back,
 * not even the owner: the server uses it (a contract's conditions read `secrets`), like a CI secret.
 */
export function Secret<T extends z.ZodType>(schema: T): T {
  return schema.meta({ writeOnly: true }) as T;
}

/** Whether a schema, or a wrapper around it (optional, nullable, default, ...), is declared `Secret`. */
export function isSecret(schema: z.ZodType): boolean {
  for (let s: z.ZodType | undefined = schema; s !== undefined; s = innerOf(s)) {
    if (z.globalRegistry.get(s)?.writeOnly === true) return true;
  }
  return false;
}

/** Removes the secret fields of a handler's answer; returns the value itself when there are none. */
export type Stripper = (value: unknown) => unknown;

const plans = new WeakMap<z.ZodType, Stripper | null>();

/**
 * The function that removes the secret fields of values of `schema`, or undefined when the schema has
 * none (most operations: the pipeline then does nothing). Objects on the way to a secret are copied,
 * never changed in place: a value may be a service's own record.
 */
export function secretStripper(schema: z.ZodType): Stripper | undefined {
  return planOf(schema) ?? undefined;
}

function planOf(schema: z.ZodType): Stripper | null {
  if (plans.has(schema)) return plans.get(schema)!;
  // A recursive (lazy) schema meets itself: no secret so far on that path.
  plans.set(schema, null);
  const plan = build(schema);
  plans.set(schema, plan);
  return plan;
}

function build(schema: z.ZodType): Stripper | null {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return planOf(def.innerType as z.ZodType);
    case 'pipe':
      // Secrets are removed from the value as the handler returned it, before the output check.
      return planOf(def.in as z.ZodType);
    case 'lazy':
      return planOf((def.getter as () => z.ZodType)());
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const secret: string[] = [];
      const nested: Array<[string, Stripper]> = [];
      for (const [key, field] of Object.entries(shape)) {
        if (isSecret(field)) secret.push(key);
        else {
          const plan = planOf(field);
          if (plan) nested.push([key, plan]);
        }
      }
      if (secret.length === 0 && nested.length === 0) return null;
      return (value) => {
        if (!isRecord(value)) return value;
        let out: Record<string, unknown> | undefined;
        for (const key of secret) {
          if (!Object.hasOwn(value, key)) continue;
          out ??= { ...value };
          delete out[key];
        }
        for (const [key, plan] of nested) {
          if (!Object.hasOwn(value, key)) continue;
          const before = value[key];
          const after = plan(before);
          if (after !== before) (out ??= { ...value })[key] = after;
        }
        return out ?? value;
      };
    }
    case 'array':
      return each(planOf(def.element as z.ZodType));
    case 'record':
      return eachValue(planOf(def.valueType as z.ZodType));
    case 'union': {
      // Every option's rule applies: a key secret in one option of a union is secret in all of them.
      const options = (def.options as z.ZodType[]).map(planOf).filter((p): p is Stripper => p !== null);
      return options.length === 0 ? null : (value) => options.reduce((v, plan) => plan(v), value);
    }
    case 'intersection': {
      const parts = [planOf(def.left as z.ZodType), planOf(def.right as z.ZodType)].filter((p): p is Stripper => p !== null);
      return parts.length === 0 ? null : (value) => parts.reduce((v, plan) => plan(v), value);
    }
    case 'tuple': {
      const items = (def.items as z.ZodType[]).map(planOf);
      const rest = def.rest ? planOf(def.rest as z.ZodType) : null;
      if (items.every((p) => p === null) && rest === null) return null;
      return (value) => (Array.isArray(value) ? value.map((v, i) => (i < items.length ? items[i] : rest)?.(v) ?? v) : value);
    }
    default:
      return null;
  }
}

function each(plan: Stripper | null): Stripper | null {
  if (!plan) return null;
  return (value) => (Array.isArray(value) ? value.map(plan) : value);
}

function eachValue(plan: Stripper | null): Stripper | null {
  if (!plan) return null;
  return (value) => (isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plan(v)])) : value);
}

function innerOf(schema: z.ZodType): z.ZodType | undefined {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  return ['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch'].includes(def.type) ? (def.innerType as z.ZodType) : undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
