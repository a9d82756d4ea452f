/** Stable error codes. The HTTP status of each is fixed by `STATUS_OF`. */
export const ERROR_CODES = [
    'VALIDATION_FAILED',
    'UNAUTHENTICATED',
    'FORBIDDEN',
    'NOT_FOUND',
    'METHOD_NOT_ALLOWED',
    'CONFLICT',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'UNPROCESSABLE',
    'RATE_LIMITED',
    'QUOTA_EXCEEDED',
    'INTERNAL',
    'NOT_IMPLEMENTED',
    'UNAVAILABLE',
];
export const STATUS_OF = {
    VALIDATION_FAILED: 400,
    UNAUTHENTICATED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    CONFLICT: 409,
    PAYLOAD_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    UNPROCESSABLE: 422,
    RATE_LIMITED: 429,
    QUOTA_EXCEEDED: 429,
    INTERNAL: 500,
    NOT_IMPLEMENTED: 501,
    UNAVAILABLE: 503,
};
/** Codes whose message is safe to show; the others get a fixed text. */
const HIDDEN_MESSAGE = {
    INTERNAL: 'Internal error; the request id identifies it in the server log',
    UNAVAILABLE: 'Service unavailable; try again shortly',
};
export const UNAUTHENTICATED_MESSAGE = 'Missing or invalid key';
/** The one error class of the service. Expected failures are thrown as this; anything else becomes INTERNAL. */
export class CoreError extends Error {
    code;
    details;
    status;
    constructor(code, message, details, options) {
        super(message, options);
        this.name = 'CoreError';
        this.code = code;
        this.details = details;
        this.status = STATUS_OF[code];
    }
}
/** Wraps anything thrown into a CoreError; unknown errors become INTERNAL with the cause kept. */
export function toCoreError(err) {
    if (err instanceof CoreError)
        return err;
    return new CoreError('INTERNAL', 'Internal error', undefined, { cause: err });
}
/** The error as shown to a caller: hidden codes never leak their message or details. */
export function publicError(err, requestId) {
    const hidden = HIDDEN_MESSAGE[err.code];
    const body = { code: err.code, message: hidden ?? err.message };
    if (!hidden && err.details !== undefined)
        body.details = err.details;
    if (requestId)
        body.request_id = requestId;
    return body;
}
export const errors = {
    validation: (message, details) => new CoreError('VALIDATION_FAILED', message, details),
    unauthenticated: () => new CoreError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE),
    forbidden: (message) => new CoreError('FORBIDDEN', message),
    notFound: (message, details) => new CoreError('NOT_FOUND', message, details),
    conflict: (message, details) => new CoreError('CONFLICT', message, details),
    unprocessable: (message, details) => new CoreError('UNPROCESSABLE', message, details),
    notImplemented: (area) => new CoreError('NOT_IMPLEMENTED', `The ${area} area is not built yet on this server`, { area }),
};
//# sourceMappingURL=errors.js.map