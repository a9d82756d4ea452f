// The contracts section of a machine page: state, next fires, state diagram, transitions with receipts.
import { api, h, short, errorText, plural } from './common.js';
import { stateDiagram } from './svg.js';

/** Loads what the caller may see: members read the machine's contracts, anyone reads a public machine's. */
async function loadContracts(slug, machine, role) {
  const base = `/api/chain/${encodeURIComponent(slug)}/contracts`;
  if (role) {
    const list = await api(base, { query: { limit: 20 } });
    if (list.status !== 200) return { error: errorText(list) };
    return {
      contracts: await Promise.all(list.body.contracts.map(async (c) => {
        const id = encodeURIComponent(c.id);
        const [one, fires] = await Promise.all([
          api(`${base}/${id}`),
          role === 'owner' ? api(`${base}/${id}/next-fires`, { query: { count: 5 } }) : machine.is_public ? api(`/api/contracts/public/${id}/next-fires`) : null,
        ]);
        return { contract: c, transitions: one.status === 200 ? one.body.transitions : [], fires: fires?.status === 200 ? fires.body : null };
      })),
    };
  }
  if (!machine.is_public) return { error: 'Contracts of a private machine are shown with your key (a share link reads the chain only).' };
  const list = await api('/api/contracts/public', { query: { slug, limit: 20 } });
  if (list.status !== 200) return { error: errorText(list) };
  return {
    contracts: await Promise.all(list.body.contracts.map(async (c) => {
      const id = encodeURIComponent(c.id);
      const [one, audit, fires] = await Promise.all([api(`/api/contracts/public/${id}`), api(`/api/contracts/public/${id}/audit`), api(`/api/contracts/public/${id}/next-fires`)]);
      return {
        contract: one.status === 200 ? one.body.contract : c,
        transitions: audit.status === 200 ? audit.body.transitions : [],
        fires: fires.status === 200 ? fires.body : null,
      };
    })),
  };
}

function firesEl(c, fires) {
  if (fires?.fires?.length) {
    return h('ol', {}, fires.fires.slice(0, 5).map((f) => h('li', { class: 'mono' }, `tick ${f.tick_number} · ${f.at} · ${f.from} → ${f.to} (${f.trigger_kind})`)));
  }
  if (fires?.note) return h('p', { class: 'muted' }, fires.note);
  return h('p', { class: 'muted' }, c.next_fire === null || c.next_fire === undefined ? 'No fire scheduled.' : `Next fire at tick ${c.next_fire}.`);
}

/**
 * The contract's proof-chain check. The server verifies the whole chain (every transition's hash, its link
 * to the one before, that each starts where the previous ended, the final state), never a single row, so
 * there is one button per contract and a break is shown on the row where it is.
 */
function verifyControl(slug, c, table, canVerify) {
  const out = h('span', { role: 'status', 'aria-live': 'polite' });
  const button = h('button', {
    type: 'button',
    class: 'secondary',
    disabled: !canVerify,
    'aria-describedby': canVerify ? undefined : `verify-why-${c.id}`,
    onclick: async () => {
      button.disabled = true;
      out.textContent = 'Checking…';
      out.className = '';
      for (const tr of table?.querySelectorAll('tr.broken') ?? []) tr.classList.remove('broken');
      const res = await api(`/api/chain/${encodeURIComponent(slug)}/contracts/${encodeURIComponent(c.id)}/verify`, { method: 'POST', body: {} });
      button.disabled = false;
      if (res.status !== 200) return void ((out.textContent = errorText(res)), (out.className = 'bad'));
      const v = res.body;
      if (v.valid) [out.textContent, out.className] = [`✓ proof chain valid: all ${plural(v.total_transitions, 'transition')} linked, ending in ${v.current_state}`, 'ok'];
      else {
        [out.textContent, out.className] = [`✗ proof chain broken at ${v.broken_at}: ${v.reason}`, 'bad'];
        table?.querySelector(`tr[data-id="${CSS.escape(v.broken_at)}"]`)?.classList.add('broken');
      }
    },
  }, 'Verify proof chain');
  const what = h('p', { class: 'muted' }, 'Checks every transition of this contract: its hash, its link to the one before, that each starts where the previous ended and that the last ends in the current state.');
  const why = canVerify ? '' : h('p', { id: `verify-why-${c.id}`, class: 'notice' }, 'Verifying needs your key with a role on this machine: save it with "Use my key" above.');
  return h('div', { class: 'verify-contract' }, h('div', { class: 'row-actions' }, button, out), what, why);
}

function transitionsTable(c, transitions) {
  if (!transitions.length) return null;
  const rows = transitions.map((t, i) => {
    const older = transitions[i + 1];
    const linked = older ? older.state_hash === t.prev_hash : null;
    return h('tr', { 'data-id': t.id },
      h('td', { class: 'num mono' }, t.tick_number),
      h('td', {}, `${t.from_state} → ${t.to_state}`),
      h('td', {}, t.success ? h('span', { class: 'ok' }, 'ok') : h('span', { class: 'bad' }, t.error ?? 'failed'), ' ', h('span', { class: 'muted' }, t.triggered_by)),
      h('td', { class: 'mono' },
        h('div', { title: t.state_hash }, 'hash ', short(t.state_hash)),
        h('div', { title: t.prev_hash }, 'prev ', short(t.prev_hash), linked === true ? h('span', { class: 'ok' }, ' ✓') : linked === false ? h('span', { class: 'bad' }, ' ✗') : ''),
        h('div', { title: t.proof_digest ?? '' }, 'proof ', short(t.proof_digest))),
    );
  });
  return h('div', { class: 'table-wrap' }, h('table', {},
    h('caption', { class: 'skip' }, `Recent transitions of ${c.name}, newest first`),
    h('thead', {}, h('tr', {}, ['tick', 'transition', 'result', 'receipt'].map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, rows)));
}

/** Renders the contracts section into `box`. */
export async function renderContracts(box, { slug, machine, role }) {
  const got = await loadContracts(slug, machine, role);
  box.className = '';
  if (got.error) return void box.replaceChildren(h('p', { class: 'muted' }, got.error));
  if (!got.contracts.length) return void box.replaceChildren(h('p', { class: 'muted' }, 'No contract on this machine.'));
  box.replaceChildren(...got.contracts.map(({ contract: c, transitions, fires }) =>
    h('article', { class: 'panel', 'aria-label': `Contract ${c.name}` },
      h('h3', {}, c.name, ' ', h('span', { class: 'pill' }, c.status), ' ', h('span', { class: 'muted mono' }, c.id)),
      h('p', {}, 'Current state: ', h('b', {}, c.current_state), ` · ${plural(c.fire_count, 'fire')} · version ${c.current_version_no}`),
      h('div', { class: 'grid' },
        h('div', {}, c.definition ? stateDiagram(c.definition, c.current_state) : h('p', { class: 'muted' }, 'Definition not readable.')),
        h('div', {}, h('h4', {}, 'Next fires'), firesEl(c, fires))),
      h('h4', {}, 'Transitions'),
      ...transitionsSection(slug, c, transitions, Boolean(role)),
    )));
}

function transitionsSection(slug, c, transitions, canVerify) {
  const table = transitionsTable(c, transitions);
  if (!table) return [h('p', { class: 'muted' }, 'No transition yet.')];
  return [verifyControl(slug, c, table, canVerify), table];
}
