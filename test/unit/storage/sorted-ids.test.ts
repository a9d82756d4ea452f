import { describe, expect, it } from 'vitest';
import { OrderedIds } from '../../../src/storage/lowdb/ordered-ids.js';
import { SortedIds } from '../../../src/storage/lowdb/sorted-ids.js';

type Entry = [value: number, ord: number, id: string];

/** A small deterministic generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const order = (a: Entry, b: Entry) => a[0] - b[0] || a[1] - b[1];

describe('sorted ids', () => {
  it.each([1, 2, 3])('agrees with a sorted array through thousands of inserts (several blocks), removals and walks (seed %i)', (seed) => {
    const next = random(seed);
    const sorted = new SortedIds();
    let model: Entry[] = [];
    for (let step = 0; step < 12_000; step++) {
      const roll = next();
      if (roll < 0.55) {
        // Mostly rising values (ticks), some anywhere, some repeated values.
        const value = roll < 0.3 ? step : Math.floor(next() * 50);
        const ord = Math.floor(next() * 100_000);
        const id = `i${ord}`;
        sorted.add(value, ord, id);
        if (!model.some((e) => e[0] === value && e[1] === ord)) model.push([value, ord, id]);
      } else if (roll < 0.85 && model.length > 0) {
        const [value, ord] = model[Math.floor(next() * model.length)]!;
        sorted.remove(value, ord);
        model = model.filter((e) => !(e[0] === value && e[1] === ord));
      } else {
        sorted.remove(-1, -1);
      }
      if (step % 1_000 === 0 || step === 11_999) {
        model.sort(order);
        expect(sorted.size).toBe(model.length);
        expect([...sorted.walk(false)]).toEqual(model);
        expect([...sorted.walk(true)]).toEqual([...model].reverse());
        for (const probe of [model[0], model[Math.floor(model.length / 2)], model.at(-1), [25, 5, 'x'] as Entry, [-5, 0, 'x'] as Entry]) {
          if (probe === undefined) continue;
          const [value, ord] = probe;
          expect([...sorted.walk(false, { value, ord })]).toEqual(model.filter((e) => order(e, probe) > 0));
          expect([...sorted.walk(true, { value, ord })]).toEqual(model.filter((e) => order(e, probe) < 0).reverse());
          expect([...sorted.walk(false, { value, ord: -Infinity })]).toEqual(model.filter((e) => e[0] >= value));
          expect([...sorted.walk(true, { value, ord: Infinity })]).toEqual(model.filter((e) => e[0] <= value).reverse());
        }
      }
    }
  });

  it('walks nothing when empty, from anywhere', () => {
    const sorted = new SortedIds();
    expect([...sorted.walk(false)]).toEqual([]);
    expect([...sorted.walk(true, { value: 3, ord: 1 })]).toEqual([]);
    sorted.add(1, 1, 'a');
    sorted.remove(1, 1);
    expect([...sorted.walk(true)]).toEqual([]);
    expect(sorted.size).toBe(0);
  });

  it('keeps ordinals in order for a bucket, above and below a bound', () => {
    const ids = new OrderedIds();
    for (let ord = 1; ord <= 3_000; ord++) ids.add(ord, `i${ord}`);
    for (let ord = 2; ord <= 3_000; ord += 2) ids.remove(ord);
    expect(ids.size).toBe(1_500);
    expect([...ids.from(2_995)]).toEqual([
      [2_997, 'i2997'],
      [2_999, 'i2999'],
    ]);
    expect([...ids.downFrom(6)]).toEqual([
      [5, 'i5'],
      [3, 'i3'],
      [1, 'i1'],
    ]);
    expect([...ids.from(0)]).toHaveLength(1_500);
    expect([...ids.downFrom(Infinity)][0]).toEqual([2_999, 'i2999']);
  });
});
