/**
 * Why a client's metadata document could not be used. Each code is stable (the consent page and the token
 * endpoint show it) and each message says what the client's author should fix.
 */
export const CLIENT_METADATA_ERROR_CODES = [
  /** The client_id is not a URL the draft allows (scheme, path, fragment, credentials, dot segments, form). */
  'INVALID_CLIENT_ID_URL',
  /** The host has no address, or its DNS lookup failed. */
  'RESOLUTION_FAILED',
  /** The host resolves to an address that is not public (private, loopback, link-local, ...). */
  'ADDRESS_REFUSED',
  /** Connecting or the TLS handshake failed (refused, reset, untrusted or mismatched certificate). */
  'FETCH_FAILED',
  /** The URL answered with a redirect; the document must be served at the client_id itself. */
  'REDIRECT_REFUSED',
  /** The URL answered with a status other than 200. */
  'HTTP_STATUS',
  /** The body is larger than the cap. */
  'TOO_LARGE',
  /** The whole fetch (lookup, connect, headers, body) took longer than the cap. */
  'TIMEOUT',
  /** The answer is not JSON (content type, encoding or syntax). */
  'NOT_JSON',
  /** The JSON is not a valid client metadata document. */
  'INVALID_DOCUMENT',
  /** The document's client_id is not exactly the URL it was fetched from. */
  'CLIENT_ID_MISMATCH',
  /** Too many metadata fetches are already running (overall or for this host); try again shortly. */
  'BUSY',
] as const;

export type ClientMetadataErrorCode = (typeof CLIENT_METADATA_ERROR_CODES)[number];

/** Codes that say nothing about the document, only about this moment: never kept in the negative cache. */
export const TRANSIENT_CODES: ReadonlySet<ClientMetadataErrorCode> = new Set(['BUSY']);

/** The one error the fetcher throws. `message` names the client_id's problem in words a client author can act on. */
export class ClientMetadataError extends Error {
  readonly code: ClientMetadataErrorCode;

  constructor(code: ClientMetadataErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ClientMetadataError';
    this.code = code;
  }
}
