/** What the first bytes of a JSON-RPC body say about it, as far as they go. */
export interface RpcHead {
  /** The top-level `method`; undefined when not seen, or seen twice with different values. */
  method?: string;
  /** `params.name` (the tool of a `tools/call`); undefined when not seen, or ambiguous. */
  name?: string;
}

const CONFLICT = Symbol('conflict');

/**
 * Scans the start of a JSON text for the top-level `method` and `params.name` without parsing it: one
 * pass over at most `head.length` characters, keeping only a stack of container kinds and the current
 * key of each object. It never throws and never reads past what it is given; what it cannot tell (a
 * truncated or malformed head, a key written with escapes it does not decode, a key given twice with
 * different values) it leaves undefined, which the caller treats as the smallest limit. It only ever
 * chooses a limit: `JSON.parse` and the SDK schemas still decide what the body is.
 */
export function scanRpcHead(head: Buffer): RpcHead {
  const text = head.toString('utf8');
  const kinds: number[] = []; // '{' or '[' per open container
  const keys: (string | undefined)[] = []; // the current key at each object level
  let expectKey = false;
  let paramsDepth = -1; // depth of the first top-level `params` object, once entered
  let method: string | typeof CONFLICT | undefined;
  let name: string | typeof CONFLICT | undefined;
  const note = (seen: string | typeof CONFLICT | undefined, value: string) => (seen === undefined || seen === value ? value : CONFLICT);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      let escaped = false;
      while (j < text.length) {
        const d = text.charCodeAt(j);
        if (d === 0x5c /* \ */) {
          escaped = true;
          j += 2;
          continue;
        }
        if (d === 0x22) break;
        j++;
      }
      if (j >= text.length) break; // the head ends inside a string
      const value = escaped ? decoded(text.slice(i, j + 1)) : text.slice(i + 1, j);
      i = j;
      const depth = kinds.length;
      if (value === undefined) {
        if (expectKey) keys[depth - 1] = undefined;
        expectKey = false;
        continue;
      }
      if (expectKey) {
        keys[depth - 1] = value;
        expectKey = false;
      } else if (depth === 1 && kinds[0] === 0x7b && keys[0] === 'method') method = note(method, value);
      else if (depth === paramsDepth && keys[depth - 1] === 'name') name = note(name, value);
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (c === 0x7b && kinds.length === 1 && kinds[0] === 0x7b && keys[0] === 'params') {
        // A second params object replaces the first in JSON.parse: the name is then not known.
        if (paramsDepth === -1) paramsDepth = 2;
        else name = CONFLICT;
      }
      kinds.push(c);
      keys.push(undefined);
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      kinds.pop();
      keys.pop();
      expectKey = false;
      if (paramsDepth !== -1 && kinds.length < paramsDepth) paramsDepth = -2; // params closed: no second one counts
    } else if (c === 0x2c /* , */) {
      expectKey = kinds[kinds.length - 1] === 0x7b;
    }
  }
  return {
    ...(typeof method === 'string' ? { method } : {}),
    ...(typeof name === 'string' ? { name } : {}),
  };
}

/** A JSON string literal with escapes, decoded; undefined when it is not a valid one. */
function decoded(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
