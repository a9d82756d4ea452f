import { $, api, h, setupKeyForm, errorText, plural, storedKey } from './common.js';

const TICK_MS = 777;
let offset = 0; // server unix_ms minus local Date.now()

function machineItem(m, detail) {
  return h('li', {}, h('a', { href: `/m/${encodeURIComponent(m.slug)}` }, m.display_name || m.slug), ' ', h('span', { class: 'muted mono' }, detail));
}

/** A list with its items, or, when there are none, the list hidden and a sentence in its place (not a numbered item). */
function fill(list, items, empty) {
  list.replaceChildren(...items);
  list.hidden = items.length === 0;
  const note = $(`#${list.id}-empty`);
  note.textContent = empty;
  note.hidden = items.length > 0;
}

/** With a key saved: the caller's own machines, private ones included (the public lists never show those). */
async function loadMine() {
  const panel = $('#mine-panel');
  if (!storedKey()) {
    panel.hidden = true;
    return;
  }
  const who = await api('/api/whoami');
  panel.hidden = false;
  if (who.status !== 200 || !who.body.authenticated) return fill($('#mine'), [], who.status === 200 ? 'The saved key is not known here; save a current one.' : errorText(who));
  const slugs = who.body.machines_owned;
  const more = who.body.machines_owned_total - slugs.length;
  const items = slugs.map((slug) => h('li', {}, h('a', { href: `/m/${encodeURIComponent(slug)}` }, slug)));
  if (more > 0) items.push(h('li', { class: 'muted' }, `and ${more} more`));
  fill($('#mine'), items, 'You own no machine yet; create one with core_spin_up.');
}

/** The MCP client entry for this node, as a client's settings file takes it. */
function showMcpEntry() {
  const url = `${location.origin}/api/mcp`;
  $('#mcp-url').textContent = url;
  const entry = { mcpServers: { core: { type: 'http', url, headers: { Authorization: 'Bearer ${CORE_API_KEY}' } } } };
  $('#mcp-entry').textContent = JSON.stringify(entry, null, 2);
  $('#copy-entry').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('#mcp-entry').textContent);
      $('#copy-state').textContent = 'Copied';
    } catch {
      $('#copy-state').textContent = 'Select the text above and copy it';
    }
  });
}

async function loadLists() {
  const [newest, active] = await Promise.all([api('/api/chain/newest', { query: { limit: 10 } }), api('/api/chain/active', { query: { limit: 10 } })]);
  if (newest.status === 200) fill($('#newest'), newest.body.machines.map((m) => machineItem(m, `${plural(m.row_count, 'row')} · genesis ${m.genesis_tick}`)), 'No public machine yet.');
  else fill($('#newest'), [], errorText(newest));
  if (active.status === 200) fill($('#active'), active.body.machines.map((m) => machineItem(m, plural(m.transition_count, 'row'))), 'Nothing wrote in the last 60 ticks.');
  else fill($('#active'), [], errorText(active));
}

async function loadCounters() {
  const res = await api('/api/chain/fleet');
  if (res.status !== 200) return;
  const b = res.body;
  $('#c-total').textContent = b.machines_total;
  $('#c-public').textContent = b.machines_public;
  $('#c-rows').textContent = b.rows_total;
  $('#c-active').textContent = b.active_last_60_ticks;
}

async function syncClock() {
  const t0 = Date.now();
  const res = await api('/api/pulse');
  if (res.status === 200) offset = res.body.unix_ms - Math.round((t0 + Date.now()) / 2);
}

function drawClock() {
  const now = Date.now() + offset;
  $('#tick').textContent = String(Math.floor(now / TICK_MS));
  $('#phase-bar').setAttribute('width', String(Math.round(((now % TICK_MS) / TICK_MS) * 240)));
  requestAnimationFrame(drawClock);
}

$('#search').addEventListener('submit', (e) => {
  e.preventDefault();
  const slug = $('#slug-input').value.trim().toLowerCase();
  if (slug) location.href = `/m/${encodeURIComponent(slug)}`;
});

showMcpEntry();
setupKeyForm(() => Promise.all([loadLists(), loadMine()]));
await syncClock();
requestAnimationFrame(drawClock);
await Promise.all([loadLists(), loadMine(), loadCounters()]);
setInterval(loadCounters, 3000);
setInterval(loadLists, 15000);
