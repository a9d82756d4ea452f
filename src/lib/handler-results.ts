/**
 * What a handler may return besides a JSON value. The domain produces these (a stream of a machine's
 * rows, a metrics page) and every layer above it reads them, so they sit below all of them.
 */

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: unknown;
}

/** What a stream action's handler returns: a source the transport subscribes to. */
export interface SseSource {
  /**
   * Starts delivery; events after `lastEventId` are replayed first. Returns a function that stops
   * delivery. A source that ends by itself (the receiver lost the right to read it) calls `end` after
   * its last event; the transport then closes the stream.
   */
  open(push: (event: SseEvent) => void, lastEventId?: string, end?: () => void): () => void;
}

/** A response that is not JSON (an SVG badge, a text prompt, Prometheus metrics). */
export interface RawBody {
  contentType: string;
  body: string | Uint8Array;
}

/** A step of long work, reported when the MCP client asked for progress. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** A raw body as JSON can carry it (a tool result, `core_http`'s answer): text as it is, bytes in base64. */
export function rawBodyAsJson(raw: RawBody): { content_type: string; encoding: 'utf8' | 'base64'; body: string } {
  return typeof raw.body === 'string'
    ? { content_type: raw.contentType, encoding: 'utf8', body: raw.body }
    : { content_type: raw.contentType, encoding: 'base64', body: Buffer.from(raw.body).toString('base64') };
}
