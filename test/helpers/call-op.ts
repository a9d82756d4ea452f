import type { ErrorBody } from '../../src/errors.js';
import { buildRegistry, type Registry } from '../../src/registry/registry.js';
import { allTools } from '../../tools/index.js';
import type { OutputOf } from './operation-outputs.js';

/**
 * What `callOp` needs of a server: its JSON client. A `TestServer`, a `DirServer` (`durable-server.ts`,
 * which answers no headers) and a test's own `{ call }` are all one.
 */
export interface OperationTarget {
  call(
    method: string,
    path: string,
    opts?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: unknown; headers?: Headers }>;
}

let registry: Registry | undefined;
/** The registry every server builds from the same tools (`compose.ts`), built once per test file. */
const registryOf = (): Registry => (registry ??= buildRegistry(allTools));

/** An operation's answer: its output on a 2xx, the error envelope otherwise (`ok` tells which). */
export type OpAnswer<T> =
  { ok: true; status: number; body: T; headers?: Headers } | { ok: false; status: number; body: { error: ErrorBody }; headers?: Headers };

export interface CallOpOptions {
  key?: string;
  headers?: Record<string, string>;
}

/** A query-string value the REST transport coerces back to the field's declared JSON type (`rest-input.ts`). */
function queryValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(',');
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/**
 * Calls the operation `id` of the registry over REST: the input's path params fill the
 * path, the other fields go in the query string of a GET or DELETE and in the JSON body otherwise.
 * The answer has the operation's own output type (`OutputOf`, read off the tools' declarations).
 */
export async function callOp<Id extends string>(
  server: OperationTarget,
  id: Id,
  input: Record<string, unknown> = {},
  opts: CallOpOptions = {},
): Promise<OpAnswer<OutputOf<Id>>> {
  const op = registryOf().byId.get(id);
  if (!op) throw new Error(`no operation ${id} in the registry`);
  const rest: Record<string, unknown> = { ...input };
  const path = op.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = rest[name];
    if (value === undefined) throw new Error(`${id} needs the path param ${name}`);
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const inQuery = op.method === 'GET' || op.method === 'DELETE';
  const query = new URLSearchParams();
  if (inQuery) for (const [name, value] of Object.entries(rest)) if (value !== undefined) query.set(name, queryValue(value));
  const search = query.toString();
  const target = search ? `${path}?${search}` : path;
  const res = await server.call(op.method, target, { ...opts, ...(inQuery ? {} : { body: rest }) });
  const ok = res.status >= 200 && res.status < 300;
  return { ok, status: res.status, body: res.body, headers: res.headers } as OpAnswer<OutputOf<Id>>;
}

/** `callOp` for a call that must succeed: its typed output, or a throw naming the status and the error. */
export async function callOpOk<Id extends string>(
  server: OperationTarget,
  id: Id,
  input: Record<string, unknown> = {},
  opts: CallOpOptions = {},
): Promise<OutputOf<Id>> {
  const answer = await callOp(server, id, input, opts);
  if (!answer.ok) throw new Error(`${id}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}
