import type { TriggerSpec } from '../contracts/contract.types.js';
import type { FoundNumber, Phrases } from './phrase-extract.js';
import { stem, stems } from './template-match.js';
import type { CuratedTemplate, TemplateParam } from './template.types.js';
import { convert, unitOf } from './units.js';

export interface ParamFill {
  params: Record<string, unknown>;
  /** Schedules whose kind changes (a cron phrase on an interval template, or the other way round). */
  retime: Array<{ index: number; trigger: TriggerSpec }>;
  notes: string[];
}

const CUES = {
  watch: ['warn', 'warning', 'watch', 'early', 'caution', 'elevated', 'notice', 'attention'],
  alert: ['alert', 'alarm', 'critical', 'danger', 'severe', 'emergency', 'trip', 'shutdown', 'limit', 'max', 'maximum', 'breach', 'fail', 'failing'],
  floor: ['below', 'under', 'less', 'drop', 'drops', 'fall', 'falls', 'minimum', 'min', 'floor', 'least', 'lower'],
  clear: ['clear', 'clears', 'cleared', 'recover', 'recovers', 'back', 'normal', 'reset', 'resume', 'resumes', 'return', 'returns'],
  compare: [
    'above',
    'over',
    'exceed',
    'exceeds',
    'exceeding',
    'greater',
    'more',
    'beyond',
    'reach',
    'reaches',
    'hit',
    'hits',
    'past',
    'top',
    'tops',
    'at',
    'to',
    'threshold',
    'than',
    'of',
    'is',
  ],
} as const;
const ROLE_OF_NAME: Array<[RegExp, keyof typeof CUES]> = [
  [/watch/, 'watch'],
  [/alert|limit|max|breach|toxic|required|threshold|target|quota/, 'alert'],
  [/floor|min|minimum/, 'floor'],
  [/clear/, 'clear'],
];
const ROLE_WORDS = /(^|_)(watch|alert|breach|clear|floor|limit|min|max)(_|$)/;

const pathIndex = (path: string) => Number(/^transitions\[(\d+)\]/.exec(path)?.[1] ?? -1);

/**
 * Fills a template's parameters from what a description says: a calendar phrase sets its cron
 * parameter (or turns its interval trigger into a cron one), an interval sets `every_ticks` (or a cron
 * expression when one says the same), a window sets `within_ticks`, a deadline sets its unix time, a
 * number with a unit fills a parameter of the same dimension (converted), and a bare number fills the
 * parameter its neighbouring words point at ("3 approvals", "warn at 80"). When one of a watch/alert
 * or breach/clear pair is set past the other, the other follows at the template's ratio.
 */
export function fillParams(template: CuratedTemplate, p: Phrases): ParamFill {
  const out: ParamFill = { params: {}, retime: [], notes: [] };
  const entries = Object.entries(template.params);
  const free = () => entries.filter(([name]) => !(name in out.params));
  const set = (name: string, value: unknown, why: string) => {
    out.params[name] = value;
    out.notes.push(`${name} = ${typeof value === 'string' ? `"${value}"` : value} (from "${why}").`);
  };
  const onPath = (param: TemplateParam, suffix: string) => param.paths?.some((x) => x.endsWith(suffix)) ?? false;
  const cronParam = entries.find(([, x]) => x.unit === 'cron');
  const everyParam = entries.find(([, x]) => onPath(x, '.every_ticks'));

  if (p.cron) {
    if (cronParam) set(cronParam[0], p.cron.expression, p.cron.text);
    else if (everyParam) {
      out.retime.push({ index: pathIndex(everyParam[1].paths![0]!), trigger: { kind: 'cron', cron: p.cron.expression } });
      out.notes.push(`The ${everyParam[0]} interval became a cron trigger "${p.cron.expression}" (from "${p.cron.text}").`);
    } else out.notes.push(`"${p.cron.text}" was not used: this template has no schedule.`);
  }
  if (p.interval) {
    const asCron = cronOfInterval(p.interval.seconds);
    const timeParam = free().find(([, x]) => x.unit === 'ticks' && !onPath(x, '.within_ticks'));
    if (everyParam && !p.cron) set(everyParam[0], p.interval.ticks, p.interval.text);
    else if (cronParam && !p.cron && asCron) set(cronParam[0], asCron, p.interval.text);
    else if (cronParam && !p.cron) {
      out.retime.push({ index: pathIndex(cronParam[1].paths![0]!), trigger: { kind: 'every', every_ticks: p.interval.ticks } });
      out.notes.push(`The ${cronParam[0]} schedule became a recurring trigger every ${p.interval.ticks} ticks (from "${p.interval.text}").`);
    } else if (timeParam && !everyParam) set(timeParam[0], p.interval.ticks, p.interval.text);
    else if (!everyParam) out.notes.push(`"${p.interval.text}" was not used: this template has no recurring schedule.`);
  }
  if (p.window) {
    const windowParam = entries.find(([, x]) => onPath(x, '.within_ticks'));
    // "within 10 minutes" on a template without a window is its timeout, when it has one.
    const timeout = free().find(([, x]) => x.unit === 'ticks');
    if (windowParam) set(windowParam[0], p.window.ticks, p.window.text);
    else if (timeout) set(timeout[0], p.window.ticks, p.window.text);
    else out.notes.push(`"${p.window.text}" was not used: this template aggregates over no window.`);
  }
  if (p.deadline) {
    const times = entries.filter(([, x]) => x.unit === 'unix_s');
    const target = times.find(([name]) => /expire|deadline|end/.test(name)) ?? times.at(-1);
    if (target) set(target[0], p.deadline.unix, p.deadline.text);
    else out.notes.push(`"${p.deadline.text}" was not used: this template has no deadline.`);
  }

  for (const n of p.numbers) {
    const pick = n.def ? byUnit(n, free()) : (byContext(n, free()) ?? soleCount(n, free()));
    if (!pick) continue;
    const [name, param] = pick;
    const target = unitOf(param.unit ?? '');
    let value = n.def && target ? convert(n.value, n.def, target) : n.value;
    if (value === undefined) continue;
    if (param.unit === 'ticks') value = Math.max(1, Math.round(value));
    set(name, Number(value.toPrecision(12)), n.text);
  }
  keepPairsOrdered(template, out);
  if (Object.keys(out.params).length === 0 && out.retime.length === 0)
    out.notes.push('No parameter values were found in the description: the template defaults are kept.');
  return out;
}

function byUnit(n: FoundNumber, candidates: Array<[string, TemplateParam]>): [string, TemplateParam] | undefined {
  const same = candidates.filter(([, x]) => unitOf(x.unit ?? '')?.dim === n.def!.dim && x.unit !== 'cron' && x.unit !== 'unix_s');
  return preferByCue(n, same) ?? same[0];
}

function byContext(n: FoundNumber, candidates: Array<[string, TemplateParam]>): [string, TemplateParam] | undefined {
  const near = new Set([...n.after.slice(0, 2), ...n.before.slice(-3)].map(stem));
  const compared = n.before.slice(-3).some((w) => (CUES.compare as readonly string[]).includes(w) || (CUES.floor as readonly string[]).includes(w));
  let best: [string, TemplateParam] | undefined;
  let bestScore = 0;
  for (const entry of candidates) {
    const [name, param] = entry;
    if (param.unit === 'cron' || param.unit === 'unix_s' || param.unit === 'ticks' || param.unit === 'event') continue;
    let score = 0;
    const words = [...stems(name), ...stems(param.description)];
    if ([...near].some((w) => words.some((k) => related(w, k)))) score += 3;
    score += cueScore(n, name);
    if (compared && /threshold|limit|watch|alert|floor|min|max|target|quota|required|budget/.test(name)) score += 1;
    if (param.unit === 'count' || param.unit === '') score += 0.5;
    if (score > bestScore) [best, bestScore] = [entry, score];
  }
  return bestScore >= 1 ? best : undefined;
}

/** Same word, or one a prefix of the other ("sign", "signature"), or sharing five letters ("approve", "approval"). */
function related(a: string, b: string): boolean {
  if (a === b) return a.length > 2;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return (short.length >= 4 && long.startsWith(short)) || (short.length >= 5 && short.slice(0, 5) === long.slice(0, 5));
}

/** A whole number nothing else claims goes to the template's only count parameter, if it has exactly one. */
function soleCount(n: FoundNumber, candidates: Array<[string, TemplateParam]>): [string, TemplateParam] | undefined {
  const counts = candidates.filter(([, x]) => x.unit === 'count');
  return Number.isInteger(n.value) && n.value > 0 && counts.length === 1 ? counts[0] : undefined;
}

function cueScore(n: FoundNumber, name: string): number {
  const before = n.before.slice(-4);
  let score = 0;
  for (const [pattern, role] of ROLE_OF_NAME) {
    if (pattern.test(name.toLowerCase()) && before.some((w) => (CUES[role] as readonly string[]).includes(w))) score += 2;
  }
  return score;
}

function preferByCue(n: FoundNumber, candidates: Array<[string, TemplateParam]>): [string, TemplateParam] | undefined {
  let best: [string, TemplateParam] | undefined;
  let bestScore = 0;
  for (const entry of candidates) {
    const score = cueScore(n, entry[0]);
    if (score > bestScore) [best, bestScore] = [entry, score];
  }
  return best;
}

/** When one of a pair (x_watch/x_alert, breach_/clear_, ..._alert_/..._clear_) moved past the other, the other follows. */
function keepPairsOrdered(template: CuratedTemplate, out: ParamFill): void {
  const families = new Map<string, string[]>();
  for (const name of Object.keys(template.params)) {
    if (!ROLE_WORDS.test(name)) continue;
    const key = name.replace(ROLE_WORDS, '$1#$3');
    families.set(key, [...(families.get(key) ?? []), name]);
  }
  for (const names of families.values()) {
    if (names.length !== 2) continue;
    const [a, b] = names as [string, string];
    const filled = a in out.params ? a : b in out.params ? b : undefined;
    const other = filled === a ? b : a;
    if (filled === undefined || other in out.params) continue;
    const defFilled = template.params[filled]!.default;
    const defOther = template.params[other]!.default;
    const value = out.params[filled];
    if (typeof defFilled !== 'number' || typeof defOther !== 'number' || typeof value !== 'number' || defFilled === 0) continue;
    const wasAbove = defOther > defFilled;
    if (wasAbove ? defOther > value : defOther < value) continue;
    const follow = Number(((value * defOther) / defFilled).toPrecision(6));
    out.params[other] = follow;
    out.notes.push(`${other} = ${follow} (kept on the same side of ${filled} as in the template).`);
  }
}

/** A cron expression for an interval that divides a minute, hour, day or week evenly, else undefined. */
export function cronOfInterval(seconds: number): string | undefined {
  if (seconds === 604800) return '0 0 * * 0';
  if (seconds === 86400) return '0 0 * * *';
  if (seconds % 3600 === 0 && seconds < 86400 && 24 % (seconds / 3600) === 0) return seconds === 3600 ? '0 * * * *' : `0 */${seconds / 3600} * * *`;
  if (seconds % 60 === 0 && seconds < 3600 && 60 % (seconds / 60) === 0) return seconds === 60 ? '* * * * *' : `*/${seconds / 60} * * * *`;
  return undefined;
}
