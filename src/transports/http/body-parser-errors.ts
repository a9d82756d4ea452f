import { CoreError, errors } from '../../errors.js';
import { DEFAULT_BODY_BYTES } from './body-limits.js';

/** `1048576` -> `1 MiB`; `7340032` -> `7 MiB`. */
function mebibytes(bytes: number): string {
  return `${+(bytes / 2 ** 20).toFixed(2)} MiB`;
}

/** body-parser failures carry a `type`; each becomes a stable code. */
export function bodyParserError(err: unknown): CoreError | undefined {
  const type = (err as { type?: unknown })?.type;
  switch (type) {
    case 'entity.too.large': {
      const { limit, detail } = err as { limit?: unknown; detail?: unknown };
      if (typeof detail === 'string') return new CoreError('PAYLOAD_TOO_LARGE', detail, typeof limit === 'number' ? { limit_bytes: limit } : undefined);
      return new CoreError('PAYLOAD_TOO_LARGE', `The request body exceeds ${typeof limit === 'number' ? mebibytes(limit) : mebibytes(DEFAULT_BODY_BYTES)}`);
    }
    case 'entity.too.deep':
      return errors.validation((err as Error).message, {
        issues: [{ path: '(body)', message: (err as Error).message, code: 'too_deep' }],
      });
    case 'entity.parse.failed':
      return errors.validation('The request body is not valid JSON', {
        issues: [{ path: '(body)', message: (err as Error).message, code: 'invalid_json' }],
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new CoreError('UNSUPPORTED_MEDIA_TYPE', (err as Error).message);
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return errors.validation((err as Error).message);
    default:
      return undefined;
  }
}
