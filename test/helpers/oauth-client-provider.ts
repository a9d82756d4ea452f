/**
 * An in-memory OAuth client as the official SDK clients use one (`OAuthClientProvider`, v1 and v2 share
 * its shape): a metadata document URL as its client_id, its tokens and PKCE verifier kept in fields, and
 * the authorization URL it would open in a browser recorded for the test to answer.
 */
export class MemoryOAuthProvider {
  clientInfo: { client_id: string; [k: string]: unknown } | undefined;
  stored: { access_token: string; refresh_token?: string; token_type: string; [k: string]: unknown } | undefined;
  verifier = '';
  authorizationUrls: URL[] = [];

  constructor(
    readonly clientMetadataUrl: string | undefined,
    readonly redirect: string,
    readonly name = 'SDK test client',
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      redirect_uris: [this.redirect],
      client_name: this.name,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: { client_id: string }) {
    this.clientInfo = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: { access_token: string; token_type: string }) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: string) {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.clientInfo = undefined;
  }
  /** The last authorization URL the client asked the browser to open. */
  get lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error('the client never asked for an authorization');
    return url;
  }
}
