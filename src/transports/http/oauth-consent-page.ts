import type { ConsentView } from '../../domain/oauth/oauth.service.js';
import { OAUTH_SCOPES, scopeCovers, type OAuthScope } from '../../domain/oauth/oauth-scopes.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const SCOPE_TEXT: Record<OAuthScope, string> = {
  read: 'read: see what you can see (GET operations only)',
  write: 'write: also append, create and run (no admin or owner operations)',
  admin: 'admin: everything you can do, key and member management included',
};

/**
 * The Content-Security-Policy of the consent page: the explorer's self-only policy, no script at all, and
 * forms may post to this node and be redirected only to the client's redirect URI (browsers apply
 * `form-action` to the redirect that follows a form post).
 */
export function consentCsp(redirectOrigin: string | undefined): string {
  const target = redirectOrigin ? ` ${redirectOrigin}` : '';
  return `default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'${target}; frame-ancestors 'none'`;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)} · core-server</title>
<link rel="stylesheet" href="/explorer/style.css"></head>
<body><header class="top"><a class="brand" href="/">core-server</a></header>
<main>${body}</main></body></html>
`;
}

/** The consent page: which client asks, where the answer goes, for what; sign in with a key or the current session. */
export function consentPage(view: ConsentView, opts: { sessionUid: string | undefined; problem?: string; codeSentTo?: string }): string {
  const name = view.client_name ?? 'An unnamed client';
  const offered = OAUTH_SCOPES.filter((s) => scopeCovers(view.scope, s));
  const scopes = offered
    .map((s) => `<label><input type="radio" name="scope" value="${s}"${s === view.scope ? ' checked' : ''}> ${escapeHtml(SCOPE_TEXT[s])}</label><br>`)
    .join('\n');
  const keyField = `<p><label>Sign in with an API key you hold: <input name="api_key" type="password" autocomplete="off" size="48"></label></p>`;
  const codeField = opts.codeSentTo
    ? `<p>A one-time code for <strong>${escapeHtml(opts.codeSentTo)}</strong> was issued (this node delivers it through its server log).
<input type="hidden" name="email" value="${escapeHtml(opts.codeSentTo)}"></p>
<p><label>One-time code: <input name="one_time_code" autocomplete="one-time-code" size="12"></label></p>`
    : `<p><label>…or with your e-mail address and a one-time code: <input name="email" type="email" autocomplete="email" size="32"></label></p>`;
  const signIn = opts.sessionUid
    ? `<p>Signed in as <code>${escapeHtml(opts.sessionUid)}</code> on this node; or sign in another way:</p>\n${keyField}\n${codeField}`
    : `${keyField}\n${codeField}`;
  const problem = opts.problem ? `<p class="bad" role="alert">${escapeHtml(opts.problem)}</p>` : '';
  const where = view.source === 'metadata-document' ? `its metadata document at <code>${escapeHtml(view.client_id)}</code>` : 'a registration with this node';
  return page(
    'Authorize',
    `<h1>Authorize ${escapeHtml(name)}</h1>
${problem}
<p><strong>${escapeHtml(name)}</strong> (from ${where}) asks to act as you on this node.
The answer goes to <strong>${escapeHtml(view.redirect_host)}</strong>.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="consent_id" value="${escapeHtml(view.consent_id)}">
<fieldset><legend>What it may do (never more than the key or session you sign in with)</legend>
${scopes}
</fieldset>
${signIn}
<p><button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  );
}

/** A refusal shown to the person, when it cannot be sent to the client (unknown client or redirect URI). */
export function errorPage(error: string, description: string): string {
  return page('Authorization refused', `<h1>Authorization refused</h1><p><code>${escapeHtml(error)}</code></p><p>${escapeHtml(description)}</p>`);
}
