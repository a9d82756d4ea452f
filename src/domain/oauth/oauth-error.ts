/** The error codes of RFC 6749 §4.1.2.1 / §5.2, RFC 7591 §3.2.2, RFC 8707 and RFC 6750 this server answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'temporarily_unavailable'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'invalid_token'
  | 'insufficient_scope';

const STATUS: Partial<Record<OAuthErrorCode, number>> = {
  invalid_client: 401,
  temporarily_unavailable: 503,
  invalid_token: 401,
  insufficient_scope: 403,
};

/**
 * An OAuth refusal: `error` and `error_description` as the RFCs name them, and the HTTP status. At the
 * authorization endpoint, `redirect` says whether the refusal may be sent to the client's redirect URI
 * (client and redirect URI were verified) or must be shown to the person instead (RFC 6749 §4.1.2.1).
 */
export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly redirect?: { uri: string; state: string | undefined },
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = STATUS[error] ?? 400;
  }

  /** The JSON body of RFC 6749 §5.2. */
  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
