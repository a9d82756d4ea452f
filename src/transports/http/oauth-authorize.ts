import type { Request, Response } from 'express';
import { CoreError } from '../../errors.js';
import type { ConsentView, GranterCredential, OAuthService } from '../../domain/oauth/oauth.service.js';
import type { SessionsService } from '../../domain/sessions/sessions.service.js';
import { OAuthError } from '../../domain/oauth/oauth-error.js';
import { isOAuthScope } from '../../domain/oauth/oauth-scopes.js';
import { sessionCookieFrom } from '../../domain/sessions/session-credentials.js';
import { consentCsp, consentPage, errorPage } from './oauth-consent-page.js';
import { formParams, sameOriginPost, type Params } from './oauth-form.js';

/**
 * `GET /oauth/authorize` checks the request and shows the consent page; `POST` is the person's answer. A
 * refusal goes back to the client only once its client_id and redirect URI are verified; before that it is
 * shown on a page (RFC 6749 §4.1.2.1), so this endpoint never redirects anywhere a client did not register.
 */
export async function serveAuthorize(
  req: Request,
  res: Response,
  deps: { oauth: OAuthService; sessions: SessionsService; form: () => Promise<Params>; fail: (err: unknown) => void },
): Promise<void> {
  const { oauth } = deps;
  const session = sessionCookieFrom(req.headers.cookie);
  const sessionUid = async () => {
    const caller = session === undefined ? undefined : await deps.sessions.resolve(session);
    return caller?.proven ? (caller.uid ?? undefined) : undefined;
  };

  function html(status: number, body: string, redirectUri?: string): void {
    res.setHeader('Content-Security-Policy', consentCsp(redirectUri ? originOf(redirectUri) : undefined));
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.status(status).type('html').send(body);
  }

  function refuse(err: unknown, redirectUri?: string): void {
    if (!(err instanceof OAuthError)) return deps.fail(err);
    if (err.redirect) {
      const url = new URL(err.redirect.uri);
      url.searchParams.set('error', err.error);
      url.searchParams.set('error_description', err.description);
      if (err.redirect.state !== undefined) url.searchParams.set('state', err.redirect.state);
      url.searchParams.set('iss', oauth.resources().issuer);
      return void res.redirect(303, url.href);
    }
    html(err.status === 503 ? 503 : 400, errorPage(err.error, err.description), redirectUri);
  }

  if (req.method === 'GET') {
    try {
      const query = formParams(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '');
      const view = await oauth.startAuthorization(query);
      return html(200, consentPage(view, { sessionUid: await sessionUid() }), view.redirect_uri);
    } catch (err) {
      return refuse(err);
    }
  }

  let view: ConsentView | undefined;
  try {
    const form = await deps.form();
    view = await oauth.consent(form.consent_id ?? '');
    if (form.decision === 'deny') return void res.redirect(303, (await oauth.deny(view.consent_id)).redirect_to);
    if (form.decision !== 'approve') throw new OAuthError('invalid_request', 'decision must be approve or deny');
    const scope = form.scope ?? view.scope;
    if (!isOAuthScope(scope)) throw new OAuthError('invalid_scope', 'choose read, write or admin');
    const key = form.api_key?.trim();
    const email = form.email?.trim();
    let credential: GranterCredential;
    if (key) credential = { kind: 'key', raw: key };
    else if (email) {
      const token = await signInByCode(deps.sessions, email, form.one_time_code?.trim() || undefined);
      if (token === undefined) return html(200, consentPage(view, { sessionUid: await sessionUid(), codeSentTo: email }), view.redirect_uri);
      res.append('Set-Cookie', token.setCookie);
      credential = { kind: 'session', token: token.value };
    } else if (session !== undefined && sameOriginPost(req, oauth.resources().issuer)) credential = { kind: 'session', token: session };
    else throw new OAuthError('access_denied', 'Sign in: enter an API key you hold, or sign in on this node first');
    return void res.redirect(303, (await oauth.approve(view.consent_id, credential, scope)).redirect_to);
  } catch (err) {
    // A wrong key or scope leaves the request open: the page is shown again with what was wrong.
    if (view && err instanceof OAuthError && (err.error === 'access_denied' || err.error === 'invalid_scope')) {
      return html(400, consentPage(view, { sessionUid: await sessionUid(), problem: err.description }), view.redirect_uri);
    }
    refuse(err);
  }
}

/**
 * The node's one-time code sign-in, on the consent page: the first answer issues a code (undefined: ask for
 * it), the second opens a session, which the browser also keeps. A wrong code is shown on the page.
 */
async function signInByCode(sessions: SessionsService, email: string, code: string | undefined): Promise<{ value: string; setCookie: string } | undefined> {
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new OAuthError('access_denied', 'Enter a valid e-mail address');
  let result: Awaited<ReturnType<SessionsService['login']>>;
  try {
    result = await sessions.login({ email, one_time_code: code });
  } catch (err) {
    if (err instanceof CoreError && err.status < 500) throw new OAuthError('access_denied', err.message);
    throw err;
  }
  if (result.code_required) return undefined;
  const value = sessionCookieFrom(result.session.set_cookie);
  if (value === undefined) throw new Error('a session was issued without its cookie');
  return { value, setCookie: result.session.set_cookie };
}

/** The origin a CSP source list names for a redirect URI: `scheme://host` for web URIs, `scheme:` for an app's own. */
function originOf(uri: string): string | undefined {
  const url = URL.parse(uri);
  if (!url) return undefined;
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}
