import { $, api, h, setupKeyForm, errorText, plural } from './common.js';

// Operations served by no MCP tool (the transport's own routes, such as the MCP endpoint itself).
const NO_TOOL = 'transport (no MCP tool)';

let endpoints = [];

/** A starting input for "try it": the required members of the schema, with an example value each. */
function skeleton(schema) {
  const out = {};
  for (const name of schema?.required ?? []) {
    const p = schema.properties?.[name] ?? {};
    const type = Array.isArray(p.type) ? p.type[0] : p.type;
    out[name] = p.default ?? p.examples?.[0] ?? (type === 'number' || type === 'integer' ? 0 : type === 'boolean' ? false : type === 'object' ? {} : type === 'array' ? [] : '');
  }
  return out;
}

/** Splits an input object into the URL (path parameters filled in, GET inputs in the query) and the body. */
function request(op, input) {
  const rest = { ...input };
  const path = op.path.replace(/\{(\w+)\}/g, (_, name) => {
    const v = rest[name];
    delete rest[name];
    return encodeURIComponent(String(v ?? ''));
  });
  if (op.method === 'GET' || op.method === 'DELETE') {
    const query = {};
    for (const [k, v] of Object.entries(rest)) query[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return { path, query: Object.keys(query).length ? query : undefined };
  }
  return { path, body: rest };
}

function tryForm(op) {
  const id = `try-${op.id.replace(/\W/g, '-')}`;
  const area = h('textarea', { id, rows: 5, cols: 60, class: 'mono', spellcheck: 'false' });
  area.value = JSON.stringify(skeleton(op.input_schema), null, 2);
  const out = h('pre', { 'aria-live': 'polite', hidden: true });
  const form = h('form', {
    onsubmit: async (e) => {
      e.preventDefault();
      let input;
      try {
        input = area.value.trim() ? JSON.parse(area.value) : {};
      } catch (err) {
        out.hidden = false;
        out.textContent = `The input is not JSON: ${err.message}`;
        return;
      }
      out.hidden = false;
      out.textContent = 'Calling…';
      const { path, query, body } = request(op, input);
      const res = await api(path, { method: op.method, query, body });
      out.textContent = `${res.status}\n${typeof res.body === 'string' ? res.body : JSON.stringify(res.body, null, 2)}`;
    },
  },
  h('label', { for: id }, 'Input (JSON)'), h('br'), area, h('br'),
  h('button', { type: 'submit', disabled: op.stream }, op.stream ? 'Streams: use EventSource' : `Try ${op.method} ${op.path}`), out);
  return form;
}

function opEl(op) {
  const details = h('details', { class: 'op', 'data-id': op.id },
    h('summary', {}, h('span', { class: 'method' }, op.method), ' ', h('code', {}, op.path), ' — ', op.summary, ' ',
      h('span', { class: 'pill' }, op.auth === 'bearer' ? `key${op.role ? `, ${op.role}` : ''}` : 'public'), ' ', h('span', { class: 'muted mono' }, op.id)));
  // Schemas and the form are built on first open: hundreds of them up front would slow the page.
  details.addEventListener('toggle', () => {
    if (!details.open || details.dataset.built) return;
    details.dataset.built = '1';
    details.append(
      h('p', {}, 'Tool ', h('code', {}, op.tool ?? '—'), op.action ? [' action ', h('code', {}, op.action)] : '', ` · area ${op.area}`),
      h('h4', {}, 'Input schema'), h('pre', {}, JSON.stringify(op.input_schema ?? {}, null, 2)),
      h('h4', {}, 'Try it'), tryForm(op));
  });
  return details;
}

function render() {
  const words = $('#q').value.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = endpoints.filter((op) => {
    const text = `${op.id} ${op.method} ${op.path} ${op.summary} ${op.tool ?? ''} ${op.action ?? ''} ${op.area}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const groups = new Map();
  for (const op of hits) {
    const key = op.tool ?? NO_TOOL;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(op);
  }
  const tools = new Set(hits.map((op) => op.tool).filter(Boolean)).size;
  $('#count').textContent = `${hits.length} of ${plural(endpoints.length, 'operation')}, ${plural(tools, 'tool')}`;
  const box = $('#catalog');
  box.className = '';
  box.replaceChildren(...[...groups].map(([tool, ops]) => h('section', { 'aria-label': tool }, h('h2', {}, tool, ' ', h('span', { class: 'muted' }, `(${ops.length})`)), ops.map(opEl))));
}

setupKeyForm();
$('#cat-search').addEventListener('submit', (e) => e.preventDefault());
$('#q').addEventListener('input', render);
const res = await api('/api/endpoints', { query: { include_schemas: 'true' } });
if (res.status === 200) {
  endpoints = res.body.endpoints;
  const q = new URLSearchParams(location.search).get('q');
  if (q) $('#q').value = q;
  render();
} else {
  $('#catalog').textContent = errorText(res);
}
