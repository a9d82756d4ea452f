import { $, api, h, short, errorText, plural, setupKeyForm, shareToken, storedKey, accessHeaders } from './common.js';
import { sparkline } from './svg.js';
import { renderContracts } from './contracts.js';

const slug = decodeURIComponent(location.pathname.split('/')[2] || '');
const base = `/api/chain/${encodeURIComponent(slug)}`;
const rows = new Map(); // seq -> row
const hiddenTypes = new Set(); // row types the reader unticked in "Show types"
const typeCounts = new Map(); // type -> rows of it in the feed
let stream; // { close() }

/** A tick starts at tick × 777 ms after the Unix epoch: shown as the reader's local date and time. */
const TICK_MS = 777;

function wallClock(tick) {
  const at = new Date(tick * TICK_MS);
  return h('time', { class: 'muted wall', datetime: at.toISOString(), title: at.toISOString() }, at.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' }));
}

function rowEl(row) {
  const prev = rows.get(row.seq - 1);
  const linkOk = prev ? prev.state_hash === row.prev_hash : null;
  const link = row.seq === 0
    ? h('span', { class: 'muted', title: row.prev_hash }, 'genesis ', short(row.prev_hash))
    : h('a', { href: `#row-${row.seq - 1}`, title: `prev_hash ${row.prev_hash}` }, `#${row.seq - 1} `, short(row.prev_hash));
  return h('tr', { id: `row-${row.seq}`, 'data-seq': row.seq, 'data-tick': row.tick, 'data-type': row.type, hidden: hiddenTypes.has(row.type) },
    h('td', { class: 'num', 'data-label': 'seq' }, row.seq),
    h('td', { class: 'num mono', 'data-label': 'tick' }, row.tick, ' ', wallClock(row.tick)),
    h('td', { 'data-label': 'type' }, row.type),
    h('td', { class: 'mono', 'data-label': 'actor' }, row.actor_uid ?? '—'),
    h('td', { class: 'mono', title: row.state_hash, 'data-label': 'hash' }, short(row.state_hash)),
    h('td', { class: 'mono', 'data-label': 'links to' }, link, linkOk === false ? h('span', { class: 'bad' }, ' ✗ mismatch') : linkOk ? h('span', { class: 'ok', 'aria-label': 'link matches' }, ' ✓') : ''),
  );
}

/** The "Show types" ticks: one per row type seen, so a chatty type (a heartbeat contract) can be hidden. */
function countType(type) {
  typeCounts.set(type, (typeCounts.get(type) ?? 0) + 1);
  const boxes = $('#type-boxes');
  let count = boxes.querySelector(`[data-count-of="${CSS.escape(type)}"]`);
  if (!count) {
    count = h('span', { class: 'muted', 'data-count-of': type });
    const box = h('input', { type: 'checkbox', value: type, checked: !hiddenTypes.has(type), onchange: () => showType(type, box.checked) });
    const label = h('label', {}, box, ' ', type, ' ', count);
    const after = [...boxes.children].find((l) => l.querySelector('input').value > type);
    boxes.insertBefore(label, after ?? null);
    $('#type-filter').hidden = false;
  }
  count.textContent = `(${typeCounts.get(type)})`;
}

function showType(type, show) {
  if (show) hiddenTypes.delete(type);
  else hiddenTypes.add(type);
  for (const tr of $('#feed').children) if (tr.dataset.type === type) tr.hidden = !show;
  feedCount();
}

function feedCount() {
  const shown = [...typeCounts].reduce((n, [type, count]) => n + (hiddenTypes.has(type) ? 0 : count), 0);
  $('#feed-count').textContent = hiddenTypes.size ? `showing ${shown} of ${plural(rows.size, 'row')}` : '';
}

function addRow(row, fresh) {
  if (rows.has(row.seq)) return;
  rows.set(row.seq, row);
  countType(row.type);
  feedCount();
  const feed = $('#feed');
  const el = rowEl(row);
  if (fresh) el.classList.add('new');
  // Newest first: insert before the first row with a smaller seq.
  const after = [...feed.children].find((tr) => Number(tr.dataset.seq) < row.seq);
  feed.insertBefore(el, after ?? null);
  // The row below may now have its link checked.
  const next = rows.get(row.seq + 1);
  if (next) $(`#row-${row.seq + 1}`)?.replaceWith(rowEl(next));
}

function setLive(text, ok) {
  const el = $('#live');
  el.textContent = text;
  el.className = `pill ${ok ? 'ok' : ''}`;
}

function onFrame(event, data) {
  if (event !== 'audit.appended') return;
  try {
    addRow(JSON.parse(data), true);
  } catch {
    /* a malformed frame is skipped */
  }
}

/** EventSource when the browser can carry the access itself (public, share token, cookie); fetch when a key must go in a header. */
function openStream(lastSeq) {
  const query = new URLSearchParams();
  if (lastSeq !== undefined) query.set('last_event_id', String(lastSeq));
  if (shareToken) query.set('share_token', shareToken);
  const url = `${base}/explore/sse?${query}`;
  if (!storedKey()) {
    const es = new EventSource(url);
    es.onopen = () => setLive('live', true);
    es.onerror = () => setLive('reconnecting', false);
    es.addEventListener('audit.appended', (e) => onFrame('audit.appended', e.data));
    return { close: () => es.close() };
  }
  const ctrl = new AbortController();
  (async () => {
    let last = lastSeq;
    while (!ctrl.signal.aborted) {
      try {
        const q = new URLSearchParams(query);
        if (last !== undefined) q.set('last_event_id', String(last));
        const res = await fetch(`${base}/explore/sse?${q}`, { headers: accessHeaders(), signal: ctrl.signal });
        if (!res.ok || !res.body) throw new Error(String(res.status));
        setLive('live', true);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let event = 'message';
            let data = '';
            for (const line of frame.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
              else if (line.startsWith('id: ')) last = line.slice(4);
            }
            if (data) onFrame(event, data);
          }
        }
      } catch {
        if (ctrl.signal.aborted) return;
      }
      setLive('reconnecting', false);
      await new Promise((r) => setTimeout(r, 1500));
    }
  })();
  return { close: () => ctrl.abort() };
}

async function verify() {
  const out = $('#verify-result');
  const button = $('#verify');
  button.disabled = true;
  out.textContent = 'Checking…';
  out.className = '';
  for (const tr of document.querySelectorAll('tr.broken')) tr.classList.remove('broken');
  const res = await api(`${base}/pohc/validate`);
  button.disabled = false;
  if (res.status !== 200) {
    out.textContent = errorText(res);
    out.className = 'bad';
    return;
  }
  const v = res.body;
  if (v.valid) {
    out.textContent = `Valid: ${plural(v.count, 'row')} re-hashed and linked from genesis tick ${v.genesis_tick}.`;
    out.className = 'ok';
  } else {
    out.textContent = `Broken at tick ${v.broken_at} (seq ${v.broken_seq}): ${v.reason ?? 'hash mismatch'}.`;
    out.className = 'bad';
    $(`#row-${v.broken_seq}`)?.classList.add('broken');
  }
  out.dataset.valid = String(v.valid);
}

async function loadSpark() {
  const res = await api(`${base}/analytics`, { query: { buckets: 48 } });
  const box = $('#spark');
  if (res.status !== 200) return void (box.textContent = errorText(res));
  const a = res.body;
  box.className = '';
  box.replaceChildren(sparkline(a.counts), h('p', { class: 'muted' }, `${plural(a.counts.reduce((x, y) => x + y, 0), 'row')} from tick ${a.from_tick} to ${a.to_tick} (${a.buckets} buckets of ${Math.round(a.bucket_ticks)} ticks)`));
}

async function loadTally() {
  const box = $('#tally');
  // Asking for the supply of a machine without a token is a 404, which the browser reports as an error:
  // the token's genesis row (one lookup in the chain's type index) says first whether there is one.
  const genesis = await api(`${base}/activity`, { query: { type: 'tally.genesis', limit: 1 } });
  if (genesis.status !== 200) return void (box.textContent = errorText(genesis));
  if (!genesis.body.rows.length) return void (box.textContent = 'No token: this machine has not created its token yet.');
  const res = await api(`${base}/tally/supply`);
  if (res.status !== 200) return void (box.textContent = errorText(res));
  const t = res.body;
  box.className = '';
  box.replaceChildren(h('ul', { class: 'counters' },
    h('li', {}, 'Max supply', h('b', {}, t.max_supply)),
    h('li', {}, 'Minted', h('b', {}, t.tokens_minted)),
    h('li', {}, 'Burned', h('b', {}, t.tokens_burned)),
    h('li', {}, 'Remaining', h('b', {}, t.tokens_remaining)),
  ), h('p', { class: 'muted' }, `${t.mint_rate_per_tick} per tick, as of tick ${t.as_of_tick}`));
}

async function load() {
  stream?.close();
  rows.clear();
  typeCounts.clear();
  $('#feed').replaceChildren();
  $('#type-boxes').replaceChildren();
  $('#type-filter').hidden = true;
  $('#main').setAttribute('aria-busy', 'true');
  const got = await api(`/api/chain/state-machines/${encodeURIComponent(slug)}`);
  $('#main').setAttribute('aria-busy', 'false');
  if (got.status !== 200) {
    $('#content').hidden = true;
    const denied = $('#denied');
    denied.hidden = false;
    denied.textContent = got.status === 401
      ? 'Your stored key was refused: forget it or save another.'
      : `No machine "${slug}" that you can see. A private machine needs a share link or your key.`;
    $('#title').textContent = slug;
    $('#meta').textContent = '';
    return;
  }
  const { machine, role } = got.body;
  $('#denied').hidden = true;
  $('#content').hidden = false;
  $('#title').textContent = machine.display_name || machine.slug;
  $('#meta').textContent = `${machine.slug} · ${machine.is_public ? 'public' : 'private'} · ${machine.status} · ${plural(machine.row_count, 'row')} · genesis tick ${machine.genesis_tick}${role ? ` · your role: ${role}` : shareToken ? ' · via share link' : ''}`;
  const activity = await api(`${base}/activity`, { query: { limit: 100 } });
  if (activity.status === 200) for (const row of [...activity.body.rows].reverse()) addRow(row, false);
  const newest = activity.body?.rows?.[0];
  stream = openStream(newest?.seq);
  await Promise.all([loadSpark(), loadTally(), renderContracts($('#contracts'), { slug, machine, role })]);
}

document.title = `${slug} · core explorer`;
$('#verify').addEventListener('click', verify);
setupKeyForm(load);
await load();
setInterval(() => void (!$('#content').hidden && loadSpark()), 30000);
