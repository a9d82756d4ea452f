import { describe, expect, it } from 'vitest';
import { evaluateCondition } from '../../../src/domain/contracts/condition.js';
import { CLOCK_EVERY, MAX_UNITS, charge, runWithAccount, withMeter } from '../../../src/domain/contracts/condition-meter.js';
import { NODE, SIZE_CHAR } from '../../../src/domain/contracts/condition-budget.js';
import { createConditionAllowance } from '../../../src/domain/contracts/condition-allowance.js';
import { createFakeClock } from '../../../src/lib/clock.js';

/**
 * A condition is charged by what it costs (characters, elements), not by
 * its syntax nodes, and is refused long before that cost is paid. Nothing here measures time: the
 * assertions are on the meter's counted units, and the deadline runs on a fake clock.
 */
const list = (n: number) => Array.from({ length: n }, (_, i) => i);
const text = (n: number) => 'a'.repeat(n);

/** A clock that never moves: only the unit budget can stop these evaluations, whatever the machine's load. */
const FROZEN = { now: () => 0 };

/** Evaluates with an account, so the test sees the units the meter counted. */
function metered(condition: string, input: Record<string, unknown>) {
  const account = { spent: 0 };
  const outcome = runWithAccount(account, () => evaluateCondition(condition, input, undefined, FROZEN));
  return { outcome, spent: account.spent };
}

describe('condition meter', () => {
  it('refuses finding 2 (size of a 150,000-character string in a 3,000-element all) after a handful of iterations', () => {
    const { outcome, spent } = metered('l.all(x, size(s) > 0)', { l: list(3000), s: text(150_000) });
    expect(outcome).toMatchObject({ ok: false, overBudget: true });
    expect((outcome as { error: string }).error).toMatch(
      /over budget: the expression needs more than 5000000 units of work.*iterate over fewer elements, work on shorter strings/,
    );
    // One iteration costs at least the characters size() counts; the whole would cost 3,000 of them.
    const perIteration = 150_000 * SIZE_CHAR;
    expect(spent).toBeLessThanOrEqual(MAX_UNITS + 2 * perIteration);
    expect(spent / perIteration).toBeLessThan(10);
  });

  it('refuses the concatenation attack (8,000 elements, a 300 KB string) within its first iterations', () => {
    const { outcome, spent } = metered('l.all(x, (s + string(x)).contains("b") == false)', { l: list(8000), s: text(300_000) });
    expect(outcome).toMatchObject({ ok: false, overBudget: true });
    // Each iteration scans s for +, produces s + x, and scans it again for contains.
    expect(spent / (3 * 300_000)).toBeLessThan(10);
  });

  it("refuses finding 3's condition, which was within the old step budget", () => {
    const { outcome, spent } = metered('l.all(x, s.startsWith("a") && size(s) > 0)', { l: list(400), s: text(100_000) });
    expect(outcome).toMatchObject({ ok: false, overBudget: true });
    expect(spent).toBeLessThanOrEqual(MAX_UNITS + 2 * 100_000 * SIZE_CHAR);
  });

  it('refuses variants: matches in a loop, map producing big strings, nested macros, list equality', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['l.all(x, s.matches("b") == false)', { l: list(2000), s: text(100_000) }],
      ['l.map(x, s + s).size() > 0', { l: list(1000), s: text(50_000) }],
      ['l.filter(x, (s + string(x)).endsWith("1")).size() >= 0', { l: list(1000), s: text(50_000) }],
      ['l.all(x, l.exists(y, s.endsWith(string(y))) == false)', { l: list(300), s: text(10_000) }],
      ['l.all(x, m == m)', { l: list(1000), m: list(10_000) }],
      ['l.all(x, l.all(y, x + y >= 0))', { l: list(1000) }],
    ];
    for (const [condition, input] of cases) {
      const { outcome, spent } = metered(condition, input);
      expect(outcome, condition).toMatchObject({ ok: false, overBudget: true });
      // Refused at the limit, give or take the single charge that crossed it.
      expect(spent, condition).toBeLessThanOrEqual(MAX_UNITS + 2_000_000);
    }
  });

  it('keeps conditions that were fine fine, with the same results and the same count each time', () => {
    const items = list(1000).map((i) => ({ sku: `sku-${i}`, qty: i + 1 }));
    const fine = (condition: string, input: Record<string, unknown>) => evaluateCondition(condition, input, undefined, FROZEN);
    expect(fine('items.all(i, i.qty > 0) && items.exists(i, i.sku == "sku-999")', { items })).toEqual({ ok: true, value: true });
    expect(fine('l.all(x, l.all(y, x + y >= 0))', { l: list(50) })).toEqual({ ok: true, value: true });
    expect(fine('name.startsWith("ab") && size(name) == 3 && name.matches("^a.c$")', { name: 'abc' })).toEqual({ ok: true, value: true });
    expect(fine('s.contains("b")', { s: text(100_000) })).toEqual({ ok: true, value: false });
    const a = metered('items.all(i, i.qty > 0)', { items });
    const b = metered('items.all(i, i.qty > 0)', { items });
    expect(a.spent).toBe(b.spent);
    // 1,000 iterations of a five-node body, and the list's elements once.
    expect(a.spent).toBeGreaterThan(1000 * 5 * NODE);
    expect(a.spent).toBeLessThan(MAX_UNITS / 10);
  });

  it('stops at the deadline, read inside the hooks, on a fake clock', () => {
    // About 1.8M units: within the unit budget, so only the clock can stop it.
    const input = { l: list(7000) };
    let reads = 0;
    const frozen = () => (reads++, 0);
    expect(evaluateCondition('l.all(x, x >= 0)', input, undefined, { now: frozen })).toEqual({ ok: true, value: true });
    expect(reads).toBeGreaterThan(1);
    let t = 0;
    const racing = () => (t += 10); // every read, 10 ms have passed
    const late = evaluateCondition('l.all(x, x >= 0)', input, undefined, { now: racing });
    expect(late).toMatchObject({ ok: false, overBudget: true });
    expect((late as { error: string }).error).toMatch(/ran past its 25 ms deadline of CPU time; iterate over fewer elements/);
  });

  it('reads the clock every CLOCK_EVERY units, so one evaluation overruns its deadline by at most one slice', () => {
    let t = 0;
    // Charges as the hooks do, 1,000 units at a time, for ever: only the deadline can end it.
    const out = withMeter(
      () => {
        for (;;) charge(1000);
      },
      { now: () => (t += 30) },
    );
    expect(out.exceeded?.limit).toBe('deadline');
    expect(out.spent).toBeLessThanOrEqual(CLOCK_EVERY + 1000);
  });
});

describe('condition allowance', () => {
  it('refuses a holder past its concurrency or its window with RATE_LIMITED and a retry time, and renews with the window', async () => {
    const clock = createFakeClock(1_000_000);
    const allowance = createConditionAllowance({ unitsPerWindow: 10_000_000, windowMs: 10_000, concurrent: 2 }, clock.now);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const a = allowance.run('k:1', () => held, 'this key');
    const b = allowance.run('k:1', () => held, 'this key');
    await expect(allowance.run('k:1', async () => 1, 'this key')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'condition_concurrency', retry_after_s: 1 },
    });
    // Another holder is not held back, nor a call that does not count toward concurrency (a transition).
    await expect(allowance.run('k:2', async () => 2, 'this key')).resolves.toBe(2);
    await expect(allowance.run('k:1', async () => 3, 'this key', false)).resolves.toBe(3);
    release();
    await Promise.all([a, b]);
    // Two over-budget evaluations spend the window.
    const attack = async () => evaluateCondition('l.all(x, size(s) > 0)', { l: list(3000), s: text(150_000) }, undefined, FROZEN);
    for (let i = 0; i < 2; i++) await allowance.run('k:1', attack, 'this key');
    expect(allowance.left('k:1')).toBe(0);
    await expect(allowance.run('k:1', async () => 1, 'this key')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'condition_budget', retry_after_s: 10 },
    });
    clock.advance(10_000);
    await expect(allowance.run('k:1', async () => 1, 'this key')).resolves.toBe(1);
  });
});
