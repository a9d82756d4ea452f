/**
 * The short form of a text for the tool descriptors, which every agent session pays for: the first
 * clause of a multi-action tool's description, of an action summary and of a field description.
 * Authors put the essential first; `core_api_catalog` and OpenAPI carry the whole text.
 */
export function firstSentence(text: string): string {
  const match = /^.*?(?<!\b(?:e\.g|i\.e|etc|vs)|\.\.)[.!?](?=\s|$)/s.exec(text);
  return (match?.[0] ?? text).trim();
}

/**
 * The first sentence without its parentheses, cut at its first `;` or `:` when longer than `keepUpTo`
 * (what follows is detail: a list, a caveat).
 */
export function firstClause(text: string, keepUpTo = 60): string {
  // "... and returns it" says nothing the answer does not show.
  const sentence = firstSentence(text)
    .replace(/\.$/, '')
    .replace(/(?:,? and|;) returns (?:it|them)$/, '');
  if (sentence.length <= keepUpTo) return sentence;
  const plain = sentence.replace(/\s+\([^()]*\)/g, '');
  if (plain.length <= keepUpTo) return plain;
  const cut = [...plain.matchAll(/[;:]\s/g)].find((m) => m.index >= 12 && outsideQuotes(plain.slice(0, m.index)));
  return cut ? plain.slice(0, cut.index) : plain;
}

/** Whether a text ends outside any quoted string or `{...}` example. */
function outsideQuotes(head: string): boolean {
  const quotes = (head.match(/"/g) ?? []).length;
  const depth = (head.match(/\{/g) ?? []).length - (head.match(/\}/g) ?? []).length;
  return quotes % 2 === 0 && depth === 0;
}
