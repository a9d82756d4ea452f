import { expect } from 'vitest';

/**
 * Plays the person's browser on the consent page: opens the authorization URL, checks what the page says,
 * and answers the form (with a key, or a session cookie). Returns where the node redirected the browser.
 */
export async function answerConsent(
  authorizationUrl: string | URL,
  answer: { apiKey?: string; cookie?: string; origin?: string; scope?: string; decision?: 'approve' | 'deny' },
): Promise<{ location: string | null; status: number; page: string; body: string }> {
  const pageRes = await fetch(authorizationUrl, { redirect: 'manual', headers: answer.cookie ? { cookie: answer.cookie } : {} });
  const page = await pageRes.text();
  if (pageRes.status !== 200) return { location: pageRes.headers.get('location'), status: pageRes.status, page, body: page };
  expect(pageRes.headers.get('content-security-policy')).toContain("default-src 'none'");
  const consentId = /name="consent_id" value="([^"]+)"/.exec(page)?.[1];
  expect(consentId).toBeDefined();
  const form = new URLSearchParams({ consent_id: consentId!, decision: answer.decision ?? 'approve' });
  if (answer.scope) form.set('scope', answer.scope);
  if (answer.apiKey) form.set('api_key', answer.apiKey);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (answer.cookie) headers.cookie = answer.cookie;
  if (answer.origin) headers.origin = answer.origin;
  const url = new URL('/oauth/authorize', authorizationUrl);
  const res = await fetch(url, { method: 'POST', body: form.toString(), headers, redirect: 'manual' });
  return { location: res.headers.get('location'), status: res.status, page, body: await res.text() };
}
