import { errors } from '../../errors.js';

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
export const MAX_PATH_LENGTH = 512;

function refuse(field: string, why: string): never {
  throw errors.validation(`Invalid ${field}: ${why}`, { issues: [{ path: field, message: why, code: 'invalid_path' }] });
}

/**
 * The canonical form of a file path in an agent's store: Unicode NFC, `/`-separated, with empty and
 * `.` segments dropped. Absolute paths, `..` segments, backslashes, control characters and paths that
 * end in `/` (a folder, not a file) are refused, so no two spellings name different files and no
 * spelling climbs out of the store.
 */
export function normalizeFilePath(raw: string): string {
  const path = raw.normalize('NFC');
  if (CONTROL.test(path)) refuse('path', 'control characters are not allowed');
  if (path.includes('\\')) refuse('path', 'use "/" to separate folders, not "\\"');
  if (path.startsWith('/')) refuse('path', 'paths are relative to your store; drop the leading "/"');
  if (path.endsWith('/')) refuse('path', 'a path names a file; drop the trailing "/"');
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) refuse('path', '".." is not allowed');
  if (segments.length === 0) refuse('path', 'the path is empty');
  const clean = segments.join('/');
  if (clean.length > MAX_PATH_LENGTH) refuse('path', `at most ${MAX_PATH_LENGTH} characters`);
  return clean;
}

/** A listing prefix: the same rules, except that it may end in "/" and may be empty. */
export function normalizePrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '' || raw === '.' || raw === './') return '';
  const trailing = raw.endsWith('/');
  const clean = normalizeFilePath(trailing ? raw.slice(0, -1) : raw);
  return trailing ? `${clean}/` : clean;
}
