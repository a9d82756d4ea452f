/** Hosts a native app listens on for its redirect: the loopback interface, by address or by name. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether `requested` is one of the client's `registered` redirect URIs: the same string, or, for an
 * http URI on a loopback host, the same URI on any port. A native app (Claude Code, VS Code, an MCP CLI)
 * listens on a port the operating system picks when the sign-in starts, so the port it registered (or
 * left out) is not the one it asks for; OAuth 2.1 (section 8.4.2, after RFC 8252 section 7.3) says the
 * authorization server must allow any port there. Scheme, host, path and query must still match
 * exactly, so the code goes nowhere but back to that machine's loopback interface.
 */
export function redirectAllowed(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const asked = loopbackParts(requested);
  return asked !== undefined && registered.some((uri) => loopbackParts(uri) === asked);
}

/** An http loopback URI without its port (`http://127.0.0.1/callback?x=1`), or undefined for any other URI. */
function loopbackParts(value: string): string | undefined {
  const url = URL.parse(value);
  if (!url || url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  if (url.username !== '' || url.password !== '' || url.hash !== '' || value.includes('#')) return undefined;
  return `http://${url.hostname}${url.pathname}${url.search}`;
}
