import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** Tokens (o200k_base) of a value as it goes over the wire: compact JSON. */
export function tokensOf(value: unknown): number {
  return countTokens(JSON.stringify(value));
}
