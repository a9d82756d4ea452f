import { ticksOf, unitOf, type UnitDef } from './units.js';

/** A number in the text, with its unit when one follows it. */
export interface FoundNumber {
  value: number;
  /** Unit as written, or null for a bare number. */
  unit: string | null;
  def: UnitDef | undefined;
  /** Lower-case words just before the number (nearest last) and just after it. */
  before: string[];
  after: string[];
  text: string;
}

/** What a plain-language description says about schedules, windows, deadlines, numbers and events. */
export interface Phrases {
  interval?: { seconds: number; ticks: number; text: string };
  cron?: { expression: string; text: string };
  window?: { ticks: number; text: string };
  deadline?: { unix: number; text: string };
  numbers: FoundNumber[];
  /** Event names the description wants listened to, in order. */
  listens: string[];
  /** Event names the description wants emitted, in order. */
  emits: string[];
  /** Payload fields the description wants aggregated ("sum of `energy_kwh`"), in order. */
  fields: string[];
  /** A name the description gives the contract ("called ..."), snake_case. */
  name?: string;
}

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const FULL_DAY = '(?:sun|mon|tues|wednes|thurs|fri|satur)days?';
const DAY = `${FULL_DAY}|(?:sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)s?`;
const TIME = String.raw`(?:\s*,?\s*(?:at|@)\s*(?:(noon|midnight)|(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*utc)?))?`;
const NUM = String.raw`(-?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?k?)`;
const SPAN_UNITS = 'ticks?|seconds?|secs?|s|minutes?|mins?|hours?|hrs?|h|days?|weeks?';

/**
 * Reads a description for the parameters a draft needs: a recurring interval ("every 5 minutes"), a
 * calendar schedule ("every Monday at 9", "weekdays at 08:30", "monthly", or a quoted 5-field cron),
 * an aggregation window ("over 2 minutes", "per minute"), a deadline (an ISO date or "unix N"),
 * numbers with their units and neighbouring words, event names (quoted or `backticked` names, or
 * "on <name> events") and aggregated payload fields. Spans used for schedules, windows and deadlines
 * are not read as numbers.
 */
export function extractPhrases(description: string): Phrases {
  let text = ` ${description.replace(/\s+/g, ' ')} `.replace(
    /\b(giga|mega|kilo)?(tonnes?|tons?)\s+(?:of\s+)?co2(e?)\b/gi,
    (_m, p: string | undefined, _t, e: string) => `${{ giga: 'G', mega: 'M', kilo: 'k' }[(p ?? '').toLowerCase() as 'giga'] ?? ''}tCO2${e}`,
  );
  const out: Phrases = { numbers: [], listens: [], emits: [], fields: [] };
  const consume = (match: RegExpExecArray) => {
    text = text.slice(0, match.index) + ' '.repeat(match[0].length) + text.slice(match.index + match[0].length);
  };

  const quotedCron = /[`"']((?:[\d*/,-]+|[a-z]{3}(?:-[a-z]{3})?)(?:\s+(?:[\d*/,-]+|[a-z]{3}(?:-[a-z]{3})?)){4})[`"']/i.exec(text);
  // Five quoted words are a cron expression only when most fields are numbers or stars.
  if (quotedCron && quotedCron[1]!.split(/\s+/).filter((f) => /[\d*]/.test(f)).length >= 3) {
    out.cron = { expression: quotedCron[1]!, text: quotedCron[0] };
    consume(quotedCron);
  } else {
    const cron = calendar(text);
    if (cron) {
      out.cron = { expression: cron.expression, text: cron.match[0].trim() };
      consume(cron.match);
    }
  }

  const every =
    new RegExp(String.raw`\b(?:every|each|once an?)\s+(?:${NUM}\s*)?(${SPAN_UNITS})\b`, 'i').exec(text) ?? /\b(hourly|daily|weekly|minutely)\b/i.exec(text);
  if (every) {
    const seconds =
      every.length > 2 ? spanSeconds(every[1], every[2]!) : { hourly: 3600, daily: 86400, weekly: 604800, minutely: 60 }[every[1]!.toLowerCase() as 'hourly'];
    if (seconds !== undefined) out.interval = { seconds, ticks: ticksOf(seconds), text: every[0].trim() };
    consume(every);
  }

  const window =
    new RegExp(String.raw`\b${NUM}[\s-]*(${SPAN_UNITS})[\s-]+(?:window|average|avg|mean|sum|total|count|rolling|moving)\b`, 'i').exec(text) ??
    new RegExp(
      String.raw`\b(?:over|within|in|during|across|for)\s+(?:the\s+|a\s+|an\s+)?(?:last\s+|past\s+|rolling\s+|sliding\s+)?(?:${NUM}[\s-]*)?(${SPAN_UNITS})(?:[\s-]+window)?\b`,
      'i',
    ).exec(text) ??
    new RegExp(String.raw`\b(?:per|a|an)\s+(?:${NUM}\s*)?(${SPAN_UNITS})\b`, 'i').exec(text);
  if (window) {
    const seconds = spanSeconds(window[1], window[2]!);
    if (seconds !== undefined) {
      out.window = { ticks: ticksOf(seconds), text: window[0].trim() };
      consume(window);
    }
  }

  const iso = /\b(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2}))?)?\s*(?:z|utc)?\b/i.exec(text);
  const unix = /\bunix(?:\s+time)?\s*(\d{9,11})\b/i.exec(text);
  if (iso) {
    const ms = Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]), Number(iso[4] ?? 0), Number(iso[5] ?? 0), Number(iso[6] ?? 0));
    if (Number.isFinite(ms)) out.deadline = { unix: Math.floor(ms / 1000), text: iso[0].trim() };
    consume(iso);
  } else if (unix) {
    out.deadline = { unix: Number(unix[1]), text: unix[0].trim() };
    consume(unix);
  }

  const named = /\b(?:called|named)\s+[`"']([^`"']{1,80})[`"']/i.exec(text);
  if (named) {
    out.name =
      named[1]!
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '') || undefined;
    consume(named);
  }
  events(text, out);
  out.numbers = numbers(text.replace(/[`"'][A-Za-z_][\w.:-]*[`"']/g, (m) => ' '.repeat(m.length)));
  return out;
}

function calendar(text: string): { expression: string; match: RegExpExecArray } | undefined {
  // Abbreviated day names only after every/each/on, so "monitor" or "the sun" never read as a day.
  const weekly =
    new RegExp(String.raw`\b(?:every|each|on)\s+((?:${DAY})(?:\s*(?:,|and|&)\s*(?:${DAY}))*|weekdays?|weekends?|work\s?days?)\b${TIME}`, 'i').exec(text) ??
    new RegExp(String.raw`\b((?:${FULL_DAY})(?:\s*(?:,|and|&)\s*(?:${FULL_DAY}))*|weekdays|weekends|work\s?days)\b${TIME}`, 'i').exec(text);
  if (weekly) {
    const days = dayField(weekly[1]!);
    if (days !== undefined) return { expression: `${clock(weekly, 2)} * * ${days}`, match: weekly };
  }
  const monthly = new RegExp(
    String.raw`\b(?:on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+)?of\s+(?:every|each|the)\s+month|(?:every|each)\s+month(?:\s+on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?)?|monthly(?:\s+on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?)?)${TIME}`,
    'i',
  ).exec(text);
  if (monthly) {
    const day = Number(monthly[1] ?? monthly[2] ?? monthly[3] ?? 1);
    if (day >= 1 && day <= 31) return { expression: `${clock(monthly, 4)} ${day} * *`, match: monthly };
  }
  // "every day" alone is an interval; with a time of day it is a calendar schedule.
  const daily = new RegExp(String.raw`\b(?:every\s+day|each\s+day|daily|every\s+morning|every\s+night|every\s+evening|nightly)${TIME}`, 'i').exec(text);
  if (daily && (daily[1] !== undefined || daily[2] !== undefined)) return { expression: `${clock(daily, 1)} * * *`, match: daily };
  const atDaily = new RegExp(
    String.raw`\bat\s+(?:(noon|midnight)|(\d{1,2})(?::(\d{2}))?\s*(am|pm)?)\s+(?:utc\s+)?(?:every\s+day|each\s+day|daily)\b`,
    'i',
  ).exec(text);
  if (atDaily) return { expression: `${clock(atDaily, 1)} * * *`, match: atDaily };
  return undefined;
}

/** "M H" from the TIME groups starting at `at` (word, hour, minute, am/pm); midnight when absent. */
function clock(m: RegExpExecArray, at: number): string {
  const word = m[at]?.toLowerCase();
  if (word === 'noon') return '0 12';
  if (word === 'midnight' || m[at + 1] === undefined) return '0 0';
  let hour = Number(m[at + 1]);
  const minute = Number(m[at + 2] ?? 0);
  const half = m[at + 3]?.toLowerCase();
  if (half === 'pm' && hour < 12) hour += 12;
  if (half === 'am' && hour === 12) hour = 0;
  return `${Math.min(minute, 59)} ${Math.min(hour, 23)}`;
}

function dayField(words: string): string | undefined {
  const w = words.toLowerCase();
  if (/^week\s?days?$|^work\s?days?$/.test(w)) return '1-5';
  if (/^weekends?$/.test(w)) return '0,6';
  const days = w.split(/\s*(?:,|and|&)\s*/).map((d) => DAYS.findIndex((name) => name.startsWith(d.replace(/s$/, '').slice(0, 3))));
  if (days.some((d) => d < 0)) return undefined;
  return [...new Set(days)].sort((a, b) => a - b).join(',');
}

function spanSeconds(amount: string | undefined, unit: string): number | undefined {
  const n = amount === undefined ? 1 : parseNumber(amount);
  const def = unitOf(unit) ?? unitOf(unit.toLowerCase());
  if (def === undefined || def.dim !== 'time' || !(n > 0)) return undefined;
  return n * def.factor;
}

export function parseNumber(raw: string): number {
  const thousands = raw.toLowerCase().endsWith('k');
  const n = Number(raw.replace(/,/g, '').replace(/k$/i, ''));
  return thousands ? n * 1000 : n;
}

const EMIT_VERBS = new Set(['emit', 'emits', 'emitting', 'publish', 'publishes', 'raise', 'raises', 'send', 'sends', 'notify', 'notifies', 'fire', 'fires']);
const AGGREGATE_WORDS = new Set(['sum', 'avg', 'average', 'mean', 'min', 'minimum', 'max', 'maximum', 'total', 'peak']);

/**
 * Quoted or backticked names: followed by "event(s)" or after "on"/"when" they are listened to, after
 * an emit verb emitted, after sum/avg/min/max/total an aggregated payload field.
 */
function events(text: string, out: Phrases): void {
  const seen = (name: string) => out.listens.includes(name) || out.emits.includes(name) || out.fields.includes(name);
  const quoted = /[`"']([A-Za-z_][\w.:-]{0,63})[`"'](\s+events?\b)?/g;
  for (let m = quoted.exec(text); m; m = quoted.exec(text)) {
    const name = m[1]!;
    if (seen(name)) continue;
    const before =
      text
        .slice(0, m.index)
        .toLowerCase()
        .match(/[a-z]+/g)
        ?.slice(-2) ?? [];
    if (m[2] === undefined && EMIT_VERBS.has(before.at(-1) ?? '')) out.emits.push(name);
    else if (m[2] === undefined && before.some((w) => AGGREGATE_WORDS.has(w))) out.fields.push(name);
    else out.listens.push(name);
  }
  const phrase = /\b(?:on|receives?|gets?|each|every|when(?:ever)?\s+an?)\s+([a-z][a-z0-9_]{2,40})\s+events?\b/gi;
  for (let m = phrase.exec(text); m; m = phrase.exec(text)) if (!seen(m[1]!.toLowerCase())) out.listens.push(m[1]!.toLowerCase());
  const emitPhrase = /\b(?:emit|emits|publish|publishes|raise|raises)\s+(?:an?\s+|the\s+)?([a-z][a-z0-9_]{2,40})(?:\s+events?)?\b/gi;
  for (let m = emitPhrase.exec(text); m; m = emitPhrase.exec(text)) if (m[1]!.includes('_') && !seen(m[1]!.toLowerCase())) out.emits.push(m[1]!.toLowerCase());
}

function numbers(text: string): FoundNumber[] {
  const found: FoundNumber[] = [];
  const re = new RegExp(
    String.raw`(?<![\w.])${NUM}(?:\s*(?:of|out\s+of)\s*\d+)?(?:\s*(°C|°|%|[A-Za-zµ][A-Za-zµ0-9²³]*(?:\s?CO2e?)?(?:\s?[/^][A-Za-z0-9²³^]+)*))?`,
    'g',
  );
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const value = parseNumber(m[1]!);
    if (!Number.isFinite(value)) continue;
    let unitText = m[2]?.replace(/\s+/g, '') ?? null;
    const def = unitText !== null ? (unitOf(unitText) ?? unitOf(m[2]!)) : undefined;
    if (unitText !== null && def === undefined) {
      // Not a unit (e.g. "3 approvals"): the word is context, and the number is bare.
      re.lastIndex = m.index + m[0].length - m[2]!.length;
      unitText = null;
    }
    const before =
      text
        .slice(0, m.index)
        .toLowerCase()
        .match(/[a-z_]+/g)
        ?.slice(-4) ?? [];
    const after =
      text
        .slice(re.lastIndex)
        .toLowerCase()
        .match(/[a-z_]+/g)
        ?.slice(0, 3) ?? [];
    found.push({ value, unit: unitText, def, before, after, text: m[0].trim() });
  }
  return found;
}
