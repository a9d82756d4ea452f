import { $, api, h, short, errorText, setupKeyForm, shareToken, storedKey, accessHeaders } from './common.js';
import { sparkline } from './svg.js';
import { renderContracts } from './contracts.js';

const slug = decodeURIComponent(location.pathname.split('/')[2] || '');
const base = `/api/chain/${encodeURIComponent(slug)}`;
const rows = new Map(); // seq -> row
let stream; // { close() }

function rowEl(row) {
  const prev = rows.get(row.seq - 1);
  const linkOk = prev ? prev.state_hash === row.prev_hash : null;
  const link = row.seq === 0
    ? h('span', { class: 'muted', title: row.prev_hash }, 'genesis ', short(row.prev_hash))
    : h('a', { href: `#row-${row.seq - 1}`, title: `prev_hash ${row.prev_hash}` }, `#${row.seq - 1} `, short(row.prev_hash));
  return h('tr', { id: `row-${row.seq}`, 'data-seq': row.seq, 'data-tick': row.tick },
    h('td', { class: 'num' }, row.seq),
    h('td', { class: 'num mono' }, row.tick),
    h('td', {}, row.type),
    h('td', { class: 'mono' }, row.actor_uid ?? '—'),
    h('td', { class: 'mono', title: row.state_hash }, short(row.state_hash)),
    h('td', { class: 'mono' }, link, linkOk === false ? h('span', { class: 'bad' }, ' ✗ mismatch') : linkOk ? h('span', { class: 'ok', 'aria-label': 'link matches' }, ' ✓') : ''),
  );
}

function addRow(row, fresh) {
  if (rows.has(row.seq)) return;
  rows.set(row.seq, row);
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
    out.textContent = `Valid: ${v.count} rows re-hashed and linked from genesis tick ${v.genesis_tick}.`;
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
  box.replaceChildren(sparkline(a.counts), h('p', { class: 'muted' }, `${a.counts.reduce((x, y) => x + y, 0)} rows from tick ${a.from_tick} to ${a.to_tick} (${a.buckets} buckets of ${Math.round(a.bucket_ticks)} ticks)`));
}

async function loadTally() {
  const res = await api(`${base}/tally/supply`);
  const box = $('#tally');
  if (res.status !== 200) return void (box.textContent = res.status === 404 ? 'This machine has no token yet.' : errorText(res));
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
  $('#feed').replaceChildren();
  const got = await api(`/api/chain/state-machines/${encodeURIComponent(slug)}`);
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
  $('#meta').textContent = `${machine.slug} · ${machine.is_public ? 'public' : 'private'} · ${machine.status} · ${machine.row_count} rows · genesis tick ${machine.genesis_tick}${role ? ` · your role: ${role}` : shareToken ? ' · via share link' : ''}`;
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
