import { describe, expect, it } from 'vitest';
import { afterCommit, openCommitScope, scopeMemo } from '../../../src/lib/commit-scope.js';

describe('scopeMemo', () => {
  it('remembers within one open scope only: not outside, not in another scope, not after the scope ended', async () => {
    const memo = scopeMemo<number>();
    memo.set('k', 1);
    expect(memo.get('k')).toBeUndefined();

    const first = openCommitScope();
    const second = openCommitScope();
    await first.run(async () => {
      memo.set('k', 1);
      await Promise.resolve();
      expect(memo.get('k')).toBe(1);
      await second.run(async () => expect(memo.get('k')).toBeUndefined());
      memo.delete('k');
      expect(memo.get('k')).toBeUndefined();
      memo.set('k', 2);
      afterCommit(() => expect(memo.get('k')).toBeUndefined());
    });
    first.commit();
    await first.run(async () => expect(memo.get('k')).toBeUndefined());
  });

  it('keeps two memos apart in the same scope', async () => {
    const a = scopeMemo<string>();
    const b = scopeMemo<string>();
    const scope = openCommitScope();
    await scope.run(async () => {
      a.set('k', 'a');
      expect(b.get('k')).toBeUndefined();
      b.set('k', 'b');
      expect(a.get('k')).toBe('a');
    });
    scope.discard();
  });
});
