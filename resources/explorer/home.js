import { $, api, h, setupKeyForm, errorText, plural } from './common.js';

const TICK_MS = 777;
let offset = 0; // server unix_ms minus local Date.now()

function machineItem(m, detail) {
  return h('li', {}, h('a', { href: `/m/${encodeURIComponent(m.slug)}` }, m.display_name || m.slug), ' ', h('span', { class: 'muted mono' }, detail));
}

function fill(list, items, empty) {
  list.replaceChildren(...(items.length ? items : [h('li', { class: 'muted' }, empty)]));
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

setupKeyForm(loadLists);
await syncClock();
requestAnimationFrame(drawClock);
await Promise.all([loadLists(), loadCounters()]);
setInterval(loadCounters, 3000);
setInterval(loadLists, 15000);
