import { describe, expect, it } from 'vitest';
import { createThreatRepository, type DeviceRecord } from '../../src/domain/edge/threat-repository.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const device = (id: string, slug: string): DeviceRecord => ({
  device_id: id,
  name: id,
  os: 'linux',
  installed_tick: 1,
  transition_id: 't',
  slug,
  registered_by: 'u',
  created_at: 't',
});

/** The threat repository (devices, claims logs, subscription counters) on every adapter. */
export function runThreatRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`threat repository: ${name}`, () => {
    it('finds a machine’s devices, reads claims newest first and counts notifications per subscription', async () => {
      const { store } = await freshStore(makeStore);
      const threats = createThreatRepository(store);
      await threats.insertDevice(device('d1', 'm'));
      await threats.insertDevice(device('d2', 'n'));
      await threats.insertDevice(device('d3', 'm'));
      await expect(threats.insertDevice(device('d1', 'n'))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect((await threats.devicesOf('m')).map((d) => d.device_id)).toEqual(['d1', 'd3']);
      expect((await threats.device('d2'))?.slug).toBe('n');
      for (const tick of [3, 7, 9]) {
        await threats.appendClaim('m', () => ({
          tick,
          type: 'claim',
          transition_id: `c${tick}`,
          claim_type: 'x',
          device_id: 'd1',
          fingerprint: 'f',
          s_forensic: 1,
          fired: true,
        }));
      }
      expect((await threats.claimsSince('m', 7)).map((c) => c.transition_id)).toEqual(['c9', 'c7']);
      await threats.countNotification('f', 'p', 'av.threat.detected', 4);
      await threats.countNotification('f', 'p', 'av.threat.detected', 8);
      expect(await threats.subscriptionCount('f', 'p', 'av.threat.detected')).toMatchObject({ fire_count: 2, last_fired_tick: 8 });
      expect(await threats.subscriptionCount('p', 'f', 'av.threat.detected')).toBeUndefined();
    });
  });
}
