/** Where the local assistant looks; each source is optional so the assistant works with what the node has. */
export interface ChatSources {
  endpoints(): Array<{ method: string; path: string; summary: string; id: string; tool: string | null; action: string | null }>;
  /** Every operator of the registry, promoted ones included. */
  operators(): Array<{ id: string; name: string; formula: string; category: string }>;
  operatorById(id: string): { id: string; name: string; formula: string; category: string } | undefined;
  templates(): Array<{ id: string; title: string; category: string; description: string }>;
  /** The kernel prompt text, or undefined when the node has none. */
  kernelPrompt(): string | undefined;
}

export interface Grounding {
  endpoints: Array<{ method: string; path: string; summary: string; tool: string | null; action: string | null }>;
  operators: Array<{ id: string; name: string; formula: string; category: string }>;
  templates: Array<{ id: string; title: string; description: string }>;
  kernel: string[];
}

const STOPWORDS = new Set(
  'the and for with how what which who why when where can could would should does did this that these those there their from into about your you are was were will have has had not but all any use using get make run want need like just please tell show give gives find list one some more most much many its also than then them they our out via per'.split(
    ' ',
  ),
);

/** Lower-case words of a text, a plural `s` dropped, snake_case split into its parts as well. */
function wordsOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
    for (const w of raw.includes('_') ? [raw, ...raw.split('_')] : [raw]) {
      if (w.length >= 3) out.push(w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);
    }
  }
  return out;
}

/** The words of a question worth searching for: no stopwords, first 12 distinct. */
export function queryWords(text: string): string[] {
  return [...new Set(wordsOf(text).filter((w) => !STOPWORDS.has(w)))].slice(0, 12);
}

/**
 * The best `n` items by the summed rarity (inverse document frequency) of the query words they
 * contain as whole words, keeping only those within `share` of the best score, so a word common to
 * the whole corpus does not drag in unrelated items, and only those sharing at least two words with
 * a question of several words. Ties keep source order.
 */
function rank<T>(items: readonly T[], textOf: (item: T) => string, words: readonly string[], n: number, share = 0.5): T[] {
  if (words.length === 0) return [];
  const sets = items.map((i) => new Set(wordsOf(textOf(i))));
  const weights = words.map((w) => Math.log(1 + sets.length / Math.max(1, sets.filter((set) => set.has(w)).length)));
  // One shared word is chance when the question has several: ask for two.
  const minMatches = Math.min(2, words.length);
  const scored = sets
    .map((set, i) => ({ i, hits: words.filter((w) => set.has(w)).length, s: words.reduce((sum, w, k) => sum + (set.has(w) ? weights[k]! : 0), 0) }))
    .filter((x) => x.hits >= minMatches)
    .sort((a, b) => b.s - a.s || a.i - b.i);
  const best = scored[0]?.s ?? 0;
  return scored
    .filter((x) => x.s >= best * share)
    .slice(0, n)
    .map((x) => items[x.i]!);
}

/** Retrieves what the node knows about a question: operations, operators, templates and kernel passages. */
export function retrieve(sources: ChatSources, question: string): Grounding {
  const words = queryWords(question);
  const endpoints = rank(sources.endpoints(), (e) => `${e.id} ${e.path} ${e.summary} ${e.tool ?? ''}`, words, 5);
  const named = (question.match(/\b[A-Z][A-Z0-9_]*\d[A-Z0-9_.]*\b/g) ?? []).map((t) => sources.operatorById(t)).filter((o) => o !== undefined);
  const found = rank(sources.operators(), (o) => `${o.id} ${o.name} ${o.category}`, words, 4, 0.6);
  const operators = [...named, ...found.filter((o) => !named.some((m) => m.id === o.id))].slice(0, 4);
  const templates = rank(sources.templates(), (t) => `${t.id} ${t.title} ${t.category} ${t.description}`, words, 3);
  const paragraphs = (sources.kernelPrompt() ?? '')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    // A heading alone says too little to quote.
    .filter((p) => p.length > 0 && !(/^#+\s/.test(p) && !p.includes('\n')));
  const kernel = rank(paragraphs, (p) => p, words, 2);
  return {
    endpoints: endpoints.map(({ method, path, summary, tool, action }) => ({ method, path, summary, tool, action })),
    operators,
    templates: templates.map(({ id, title, description }) => ({ id, title, description })),
    kernel,
  };
}

/** The local assistant's answer: what was retrieved, as a short guide with the calls to make. */
export function composeAnswer(question: string, g: Grounding): string {
  const asked = question.trim().replace(/\s+/g, ' ').slice(0, 160);
  const parts: string[] = [];
  if (g.endpoints.length > 0) {
    parts.push(
      'Operations that fit:\n' +
        g.endpoints.map((e) => `- \`${e.method} ${e.path}\`${e.tool ? ` (${e.tool}${e.action ? `, action ${e.action}` : ''})` : ''}: ${e.summary}`).join('\n'),
    );
  }
  if (g.operators.length > 0) {
    parts.push('Operators (evaluate with `POST /api/compute`):\n' + g.operators.map((o) => `- ${o.id} ${o.name}: ${o.formula} (${o.category})`).join('\n'));
  }
  if (g.templates.length > 0) {
    parts.push('Contract templates:\n' + g.templates.map((t) => `- ${t.id}: ${t.title}. ${t.description}`).join('\n'));
  }
  if (g.kernel.length > 0)
    parts.push(
      'From the kernel prompt:\n' +
        g.kernel
          .map((k) =>
            k
              .split('\n')
              .map((l) => `> ${l}`)
              .join('\n'),
          )
          .join('\n>\n'),
    );
  if (parts.length === 0) {
    return (
      `I found nothing in this server's catalogue, operators, templates or kernel prompt that matches "${asked}". ` +
      'Name an operation, an operator id (such as NM19) or a topic such as compute, solvers, machines, contracts or credits; ' +
      '`GET /api/endpoints?q=...` searches every operation and `GET /api/kernel/prompt` explains how to use the service.'
    );
  }
  return [
    `Here is what this server has for "${asked}".`,
    ...parts,
    'Call any operation with core_http, or search the catalogue with core_api_catalog (`GET /api/endpoints?q=...`).',
  ].join('\n\n');
}
