// Shared by the explorer pages: access (key, share token), API calls, small DOM helpers.

const KEY = 'core_key';

/** The share token of a share link (`?share_token=`), passed on to every API call. */
export const shareToken = new URLSearchParams(location.search).get('share_token') || '';

export function storedKey() {
  try {
    return localStorage.getItem(KEY) || '';
  } catch {
    return '';
  }
}

/** Headers carrying the caller's access: the stored key, the share token; the session cookie goes by itself. */
export function accessHeaders() {
  const headers = {};
  const key = storedKey();
  if (key) headers.authorization = `Bearer ${key}`;
  if (shareToken) headers['x-share-token'] = shareToken;
  return headers;
}

/** Calls the REST API; resolves to `{ status, body }` and never throws on an HTTP error. */
export async function api(path, { method = 'GET', body, query } = {}) {
  const headers = accessHeaders();
  if (body !== undefined) headers['content-type'] = 'application/json';
  const url = query ? `${path}?${new URLSearchParams(query)}` : path;
  try {
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
    const text = await res.text();
    let parsed = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed };
  } catch (err) {
    return { status: 0, body: { error: { code: 'NETWORK', message: String(err) } } };
  }
}

/** `h('a', { href }, 'text', child)`: an element with attributes and children (strings become text). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) el.append(c instanceof Node ? c : String(c));
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const short = (hash) => (hash ? `${hash.slice(0, 10)}…` : '—');
/** `3 tools`, `1 tool`: a count with its noun (regular plurals only). */
export const plural = (n, word) => `${n} ${n === 1 ? word : `${word}s`}`;
export const errorText = (res) => res.body?.error ? `${res.body.error.code}: ${res.body.error.message}` : `HTTP ${res.status}`;

/** Keeps a link's share token when moving between pages. */
export function withShare(href) {
  return shareToken ? `${href}${href.includes('?') ? '&' : '?'}share_token=${encodeURIComponent(shareToken)}` : href;
}

/** Wires the "use my key" form in the header: stores the key in this browser only. */
export function setupKeyForm(onChange) {
  const form = $('#key-form');
  if (!form) return;
  const input = $('#key-input');
  const state = $('#key-state');
  const show = () => {
    state.textContent = storedKey() ? 'Using your key' : 'No key';
  };
  show();
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = input.value.trim();
    if (!v) return;
    localStorage.setItem(KEY, v);
    input.value = '';
    show();
    onChange?.();
  });
  $('#key-forget').addEventListener('click', () => {
    localStorage.removeItem(KEY);
    show();
    onChange?.();
  });
}
