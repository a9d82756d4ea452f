// SVG drawings built from data: the activity sparkline and a contract's state diagram.

const NS = 'http://www.w3.org/2000/svg';

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** A sparkline of counts (oldest first), labelled for screen readers with the total and the peak. */
export function sparkline(counts, { width = 320, height = 60 } = {}) {
  const max = Math.max(1, ...counts);
  const step = counts.length > 1 ? width / (counts.length - 1) : width;
  const pts = counts.map((c, i) => `${(i * step).toFixed(1)},${(height - 4 - (c / max) * (height - 8)).toFixed(1)}`);
  const total = counts.reduce((a, b) => a + b, 0);
  const svg = s('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `Activity: ${total} rows, peak ${max} per bucket` });
  svg.append(s('polygon', { class: 'spark-area', points: `0,${height} ${pts.join(' ')} ${width},${height}` }));
  svg.append(s('polyline', { class: 'spark', points: pts.join(' ') }));
  return svg;
}

/**
 * A state diagram: states on a circle, one arrow per transition (self-loops as small arcs), the
 * current state highlighted. Good for the handful of states contracts have.
 */
export function stateDiagram(definition, current) {
  const names = Object.keys(definition.states || {});
  const n = Math.max(names.length, 1);
  const W = 420;
  const H = names.length <= 2 ? 170 : 300;
  const cx = W / 2;
  const cy = H / 2;
  const rx = names.length <= 2 ? 130 : 150;
  const ry = names.length <= 2 ? 0 : 100;
  const pos = new Map(names.map((name, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / n + (names.length === 2 ? Math.PI / 2 : 0);
    return [name, { x: cx + rx * Math.cos(a), y: cy + ry * Math.sin(a) }];
  }));
  const label = `State diagram of ${definition.name}: ${names.length} states, ${(definition.transitions || []).length} transitions, current state ${current}`;
  const svg = s('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label });
  const id = `arrow-${Math.random().toString(36).slice(2, 8)}`;
  svg.append(s('defs', {}, s('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, s('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#5f6368' }))));
  const R = 34;
  const RX = R + 12;
  const RY = R - 8;
  // Distance from a node's centre to its ellipse's edge along (ux, uy), plus a small gap for the arrowhead.
  const rim = (ux, uy) => 1 / Math.hypot(ux / RX, uy / RY) + 2;
  for (const t of definition.transitions || []) {
    const a = pos.get(t.from);
    const b = pos.get(t.to);
    if (!a || !b) continue;
    const tip = t.trigger ? t.trigger.kind : t.condition ? 'if' : '';
    if (t.from === t.to) {
      const d = `M${a.x - 14},${a.y - RY + 1} C${a.x - 40},${a.y - RY - 46} ${a.x + 40},${a.y - RY - 46} ${a.x + 14},${a.y - RY - 1}`;
      svg.append(s('path', { class: 'edge', d, 'marker-end': `url(#${id})` }));
      if (tip) svg.append(s('text', { x: a.x, y: a.y - RY - 38, 'text-anchor': 'middle' }, tip));
      continue;
    }
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    const ux = dx / len;
    const uy = dy / len;
    // Bend each arrow to its left so a pair of opposite transitions does not overlap.
    const mx = (a.x + b.x) / 2 - uy * 18;
    const my = (a.y + b.y) / 2 + ux * 18;
    const r = rim(ux, uy);
    const d = `M${a.x + ux * r},${a.y + uy * r} Q${mx},${my} ${b.x - ux * r},${b.y - uy * r}`;
    svg.append(s('path', { class: 'edge', d, 'marker-end': `url(#${id})` }));
    if (tip) svg.append(s('text', { x: mx, y: my - 4, 'text-anchor': 'middle' }, tip));
  }
  for (const name of names) {
    const p = pos.get(name);
    const spec = definition.states[name] || {};
    svg.append(s('ellipse', { class: `node${name === current ? ' current' : ''}`, cx: p.x, cy: p.y, rx: RX, ry: RY }));
    if (spec.terminal) svg.append(s('ellipse', { class: 'edge', cx: p.x, cy: p.y, rx: R + 8, ry: R - 12 }));
    svg.append(s('text', { x: p.x, y: p.y + 4, 'text-anchor': 'middle' }, name.length > 12 ? `${name.slice(0, 11)}…` : name));
  }
  return svg;
}
