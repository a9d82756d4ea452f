import { eventsOf, operatorsOf } from './template-catalogue.service.js';
import type { CuratedTemplate } from './template.types.js';

const STOP = new Set(
  (
    'a an and or the of to in on at by for from with into onto when whenever while if then than that this these those it its is are be been ' +
    'was were will would should can could may might must do does did has have had i we you they he she me my our your their them us ' +
    'what which who whom how where why all any each every some no not only own same so too very just also both either neither ' +
    'over under above below more less most least after before again once here there about against between through during ' +
    'up down out off until per via as such contract contracts state states machine please want need like make create build set ' +
    'use using get gets one two three some new want send tell let lets keep goes go'
  ).split(/\s+/),
);

/** Lower-case word stems of a text, stop words left out. */
export function stems(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[_-]+/g, ' ')
      .match(/[a-z][a-z0-9]*/g) ?? []
  )
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map(stem);
}

/** A light suffix stripper: "approvals" → "approval", "breached" → "breach", "readings" → "reading". */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}

/** How much a word found in each part of a template counts. */
const WEIGHTS = { title: 3, keywords: 2.5, id: 2, events: 2, states: 1.5, operators: 1.5, params: 1, description: 1, uses: 0.5 } as const;
type Field = keyof typeof WEIGHTS;

export interface TemplateMatch {
  template: CuratedTemplate;
  score: number;
  /** Description words that matched, strongest first. */
  matched: string[];
}

export interface TemplateMatcher {
  /** Templates ranked by how well they match the description's words (best first; zero scores left out). */
  rank(description: string, boost?: (t: CuratedTemplate) => number): TemplateMatch[];
}

/**
 * Scores templates by the description's words: each distinct word counts the weight of the strongest
 * part of a template it occurs in (title, keywords, id, events, states, operator names, parameter
 * names, description, uses), times its rarity across the catalogue (IDF), so a word every template
 * has counts little. Two words sharing their first five letters ("approve", "approval") count half.
 */
export function createTemplateMatcher(templates: readonly CuratedTemplate[], operatorName: (id: string) => string | undefined): TemplateMatcher {
  const indexed = templates.map((template) => {
    const { listens, emits } = eventsOf(template);
    const ops = [...new Set(template.definition.transitions.flatMap(operatorsOf))];
    const fields: Record<Field, string[]> = {
      title: stems(template.title),
      keywords: template.keywords.flatMap(stems),
      id: stems(template.id),
      events: [...listens, ...emits].flatMap(stems),
      states: Object.keys(template.definition.states).flatMap(stems),
      operators: ops.flatMap((id) => [id.toLowerCase(), ...stems(operatorName(id) ?? '')]),
      params: Object.keys(template.params).flatMap(stems),
      description: stems(template.description),
      uses: template.uses.flatMap(stems),
    };
    const weightOf = new Map<string, number>();
    for (const field of Object.keys(fields) as Field[]) {
      for (const word of fields[field]) weightOf.set(word, Math.max(weightOf.get(word) ?? 0, WEIGHTS[field]));
    }
    return { template, weightOf };
  });
  const df = new Map<string, number>();
  for (const { weightOf } of indexed) for (const word of weightOf.keys()) df.set(word, (df.get(word) ?? 0) + 1);
  const idf = (word: string) => Math.log(1 + indexed.length / (df.get(word) ?? indexed.length));

  return {
    rank(description, boost) {
      const words = [...new Set(stems(description))];
      const out: TemplateMatch[] = [];
      for (const { template, weightOf } of indexed) {
        const hits: Array<[string, number]> = [];
        for (const word of words) {
          let w = (weightOf.get(word) ?? 0) * idf(word);
          if (w === 0 && word.length >= 5) {
            for (const [known, weight] of weightOf) {
              if (known.length >= 5 && known.slice(0, 5) === word.slice(0, 5)) w = Math.max(w, (weight * idf(known)) / 2);
            }
          }
          if (w > 0) hits.push([word, w]);
        }
        const score = hits.reduce((sum, [, w]) => sum + w, 0) + (hits.length > 0 ? (boost?.(template) ?? 0) : 0);
        if (score > 0) out.push({ template, score: Math.round(score * 100) / 100, matched: hits.sort((a, b) => b[1] - a[1]).map(([w]) => w) });
      }
      return out.sort((a, b) => b.score - a.score);
    },
  };
}
