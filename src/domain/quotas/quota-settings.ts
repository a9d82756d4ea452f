/** The quotas a node enforces, each a count per identity, per machine or per client address. */
export const QUOTA_NAMES = ['machines', 'contracts_per_machine', 'devices_per_machine', 'api_keys_per_machine', 'demo_keys_per_address'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** The limit of each quota; `null` for unlimited. */
export type QuotaSettings = Record<QuotaName, number | null>;

/**
 * Defaults: far above what a person or an honest program uses, far below what a loop creating things
 * for free reaches. `demo_keys_per_address` counts over a rolling hour; the others count what exists.
 */
export const DEFAULT_QUOTAS: Readonly<QuotaSettings> = Object.freeze({
  machines: 50,
  contracts_per_machine: 20,
  devices_per_machine: 50,
  api_keys_per_machine: 20,
  demo_keys_per_address: 20,
});

/** Every quota off: `CORE_QUOTAS=off`, for load tests and benchmarks. */
export const NO_QUOTAS: Readonly<QuotaSettings> = Object.freeze(Object.fromEntries(QUOTA_NAMES.map((name) => [name, null])) as QuotaSettings);

/**
 * Parses `CORE_QUOTAS`: `off`, or comma-separated `name=<count>` / `name=off` entries that replace
 * those defaults (e.g. `machines=200,contracts_per_machine=off`). Throws on anything else, so a typo
 * stops the server at start instead of silently keeping a default.
 */
export function parseQuotaSettings(value: string | undefined): QuotaSettings {
  const settings: QuotaSettings = { ...DEFAULT_QUOTAS };
  const text = value?.trim() ?? '';
  if (text === '') return settings;
  if (text.toLowerCase() === 'off') return { ...NO_QUOTAS };
  for (const entry of text.split(',')) {
    const m = /^\s*([a-z_]+)\s*=\s*(?:(off)|(\d{1,9}))\s*$/.exec(entry);
    const name = m?.[1] as QuotaName | undefined;
    if (!m || !name || !QUOTA_NAMES.includes(name)) {
      throw new Error(
        `CORE_QUOTAS must be "off" or comma-separated "name=<count>" / "name=off" with names ${QUOTA_NAMES.join(', ')} (e.g. machines=50,contracts_per_machine=20), got "${entry.trim()}"`,
      );
    }
    settings[name] = m[2] ? null : Number(m[3]);
  }
  return settings;
}
