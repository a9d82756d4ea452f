import { ClientMetadataError } from './client-metadata-error.js';

/** Longer client_ids are refused before anything is parsed or looked up. */
export const MAX_CLIENT_ID_LENGTH = 2048;

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

function refuse(reason: string): never {
  throw new ClientMetadataError('INVALID_CLIENT_ID_URL', `client_id must be an HTTPS URL of a metadata document: ${reason}`);
}

/**
 * The parsed client_id, or INVALID_CLIENT_ID_URL. The rules are the draft's (https, a path, no dot segments, no
 * fragment, no user or password), checked on the text as sent because `new URL` silently drops dot segments,
 * and one more: the text must already be in the form `new URL` prints. The draft forbids the server to
 * normalise a client_id when it compares; refusing a non-canonical one means two spellings can never name one
 * document (one cache entry, one consent screen), and the message shows the form to use.
 */
export function parseClientIdUrl(clientId: string): URL {
  if (clientId.length > MAX_CLIENT_ID_LENGTH) refuse(`it is longer than ${MAX_CLIENT_ID_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f\\]/.test(clientId)) refuse('it contains a space, a control character or a backslash');
  const url = URL.parse(clientId);
  if (!url) refuse(`"${clientId}" is not an absolute URL`);
  if (url.protocol !== 'https:') refuse(`the scheme is "${url.protocol.slice(0, -1)}", and only https is allowed`);
  if (url.username !== '' || url.password !== '' || /^https:\/\/[^/?#]*@/i.test(clientId)) refuse('it must not contain a user name or password');
  if (clientId.includes('#')) refuse('it must not contain a fragment (#...)');
  const rawPath = clientId.replace(/^https:\/\/[^/?#]*/i, '').split('?')[0] ?? '';
  if (rawPath.split('/').some((segment) => DOT_SEGMENT.test(segment))) refuse('its path must not contain "." or ".." segments');
  if (url.pathname === '/' || url.pathname === '') refuse('it must have a path naming the document (e.g. https://app.example.com/oauth/client.json)');
  if (url.href !== clientId) refuse(`write it in canonical form, ${url.href}`);
  return url;
}
