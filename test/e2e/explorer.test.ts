/// <reference lib="dom" />
// The page.evaluate callbacks below run in the browser.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { allTools } from '../../tools/index.js';
import { mintKey, startTestServer, tempDir, testConfig, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

// The README's screenshots are refreshed only on request (UPDATE_SCREENSHOTS=1), so a test run leaves the
// tree clean; otherwise they go to a temp folder and are still taken, which exercises rendering.
const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : path.join(os.tmpdir(), 'core-explorer-shots');
let server: TestServer;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  profile = await mkdtemp(path.join(os.tmpdir(), 'core-chromium-'));
  [server, browser] = await Promise.all([
    startTestServer(),
    chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1200, height: 900 },
    }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(profile, { recursive: true, force: true });
});

let n = 0;
/** A machine with a few events; public unless told otherwise. */
async function machine(s: { call: TestServer['call'] }, opts: { isPublic?: boolean; events?: number; contract?: boolean } = {}) {
  const owner = await mintKey(s as TestServer);
  const slug = `ex-${++n}-${Date.now().toString(36)}`;
  const created = await s.call('POST', '/api/chain/state-machines', {
    key: owner.key,
    body: { slug, display_name: `Explorer demo ${n}`, is_public: opts.isPublic ?? true },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  for (let i = 0; i < (opts.events ?? 3); i++) {
    expect((await s.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'reading', payload: { i } } })).status).toBe(200);
  }
  if (opts.contract) {
    const definition = {
      name: 'pump_guard',
      states: { idle: { initial: true }, running: {}, stopped: { terminal: true } },
      transitions: [
        { from: 'idle', to: 'running', operator: 'KO42' },
        { from: 'running', to: 'idle', operator: 'KO42', trigger: { kind: 'every', every_ticks: 50 } },
        { from: 'running', to: 'stopped', operator: 'KO42', condition: 'input.stop == true' },
      ],
    };
    const c = await s.call('POST', `/api/chain/${slug}/contracts`, { key: owner.key, body: { definition } });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const t = await s.call('POST', `/api/chain/${slug}/contracts/${c.body.contract.id}/transition`, { key: owner.key, body: { to: 'running', input: {} } });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
  }
  return { slug, owner };
}

/**
 * Script errors and console errors of the pages opened so far (policy violations, and the browser's report
 * of every request answered with an error status): every test expects none, except the failed loads it
 * names in `allowFailed` (a private machine's page answered 404 for a stranger).
 */
const pageErrors: string[] = [];

async function open(
  url: string,
  opts: { allowFailed?: RegExp; viewport?: { width: number; height: number }; before?: (page: Page) => Promise<void> } = {},
): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (err) => pageErrors.push(`${url}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const from = msg.location().url;
    if (opts.allowFailed && /Failed to load resource/.test(msg.text()) && opts.allowFailed.test(from)) return;
    pageErrors.push(`${url}: ${msg.text()} (${from})`);
  });
  if (opts.viewport) await page.setViewportSize(opts.viewport);
  await opts.before?.(page);
  await page.goto(url);
  return page;
}

const PHONE = { width: 390, height: 844 };

/**
 * What sticks out of a phone-sized window: the page scrolling sideways, and every element whose box
 * passes the right edge and is not inside a container that scrolls (or clips) sideways by design.
 */
function overflowOf(page: Page) {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const inScroller = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (/auto|scroll|hidden/.test(getComputedStyle(p).overflowX)) return true;
      }
      return false;
    };
    const wide = Array.from(document.body.querySelectorAll('*'))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.right > width + 0.5 || r.left < -0.5) && !inScroller(el) && !el.classList.contains('skip') && !el.closest('.skip');
      })
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''} right=${Math.round(el.getBoundingClientRect().right)}`,
      );
    return { scrollWidth: document.scrollingElement!.scrollWidth, innerWidth: width, wide: wide.slice(0, 10) };
  });
}

afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS, name), fullPage: true });

describe('explorer', () => {
  it('serves its pages with a self-only policy and leaves the API untouched', async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await fetch(`${server.url}/explorer/nope.js`)).status).toBe(404);
    expect((await server.call('GET', '/api/pulse')).status).toBe(200);
    expect((await server.call('GET', '/api/nothing-here')).body.error.code).toBe('NOT_FOUND');
  });

  it('lists public machines on the home page, ticks the clock and opens a machine by slug', async () => {
    const { slug } = await machine(server, { events: 2 });
    const page = await open(`${server.url}/`);
    await expect.poll(() => page.locator('#newest').textContent()).toContain('Explorer demo');
    const tick = Number(await page.locator('#tick').textContent());
    await expect.poll(async () => Number(await page.locator('#tick').textContent()), { timeout: 60_000 }).toBeGreaterThan(tick);
    await expect.poll(() => page.locator('#c-public').textContent()).not.toBe('–');
    await shot(page, 'explorer-home.png');
    await page.fill('#slug-input', slug);
    await page.press('#slug-input', 'Enter');
    await page.waitForURL(`**/m/${slug}`);
    await page.close();
  });

  it('shows a row appended through the API in the live feed within 2 seconds, with contracts drawn', async () => {
    const { slug, owner } = await machine(server, { events: 3, contract: true });
    const page = await open(`${server.url}/m/${slug}`);
    await expect.poll(() => page.locator('#live').textContent()).toBe('live');
    const appended = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'reading', payload: { live: true } } });
    expect(appended.status).toBe(200);
    await page.locator(`#feed tr[data-seq="${appended.body.seq}"]`).waitFor({ timeout: 60_000 });
    expect(await page.locator(`#row-${appended.body.seq}`).textContent()).toContain('reading');
    await page.locator('#contracts svg').first().waitFor();
    expect(await page.locator('#contracts').textContent()).toContain('running');
    await page.locator('#spark svg').waitFor();
    // With the owner's key the contract's proof chain can be verified from a transition row.
    await page.fill('#key-input', owner.key);
    await page.click('#key-form button[type=submit]');
    await expect.poll(() => page.locator('#meta').textContent()).toContain('your role: owner');
    const check = page.locator('#contracts .verify-contract');
    await check.getByRole('button', { name: 'Verify proof chain' }).click();
    await expect.poll(() => check.locator('[role=status]').textContent()).toBe('✓ proof chain valid: all 1 transition linked, ending in running');
    await shot(page, 'explorer-machine.png');
    await page.click('#key-forget');
    await page.close();
  });

  it('verifies the chain as valid, and shows the broken tick after a stored row is edited', async () => {
    const { dir, cleanup } = await tempDir();
    let running: RunningServer = await startHttpServer({ config: testConfig(dir), log: createLogger('silent') });
    try {
      const call: TestServer['call'] = async (method, p, opts = {}) => {
        const res = await fetch(`${running.url}${p}`, {
          method,
          headers: { ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}), ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        });
        return { status: res.status, body: await res.json(), headers: res.headers };
      };
      const { slug } = await machine({ call }, { events: 5 });
      let page = await open(`${running.url}/m/${slug}`);
      await page.locator('#feed tr').first().waitFor();
      await page.click('#verify');
      await expect.poll(() => page.locator('#verify-result').textContent()).toMatch(/^Valid: 6 rows/);
      await page.close();

      await running.stop(500);
      const logFile = path.join(dir, 'logs', `chain%2F${slug}.jsonl`);
      const lines = (await readFile(logFile, 'utf8')).trimEnd().split('\n');
      const row = JSON.parse(lines[3]!);
      row.payload_digest = 'f'.repeat(64);
      lines[3] = JSON.stringify(row);
      await writeFile(logFile, lines.join('\n') + '\n');
      running = await startHttpServer({ config: testConfig(dir), log: createLogger('silent') });

      page = await open(`${running.url}/m/${slug}`);
      await page.locator('#feed tr').first().waitFor();
      await page.click('#verify');
      await expect.poll(() => page.locator('#verify-result').textContent()).toContain(`Broken at tick ${row.tick} (seq 3)`);
      expect(await page.locator('#row-3').getAttribute('class')).toContain('broken');
      await shot(page, 'explorer-verify-broken.png');
      await page.close();
    } finally {
      await running.stop(500);
      await cleanup();
    }
  });

  it('hides a private machine without access, and shows it with the share link or the owner key', async () => {
    const { slug, owner } = await machine(server, { isPublic: false, events: 2 });
    // A stranger's request for a private machine is answered 404, which the browser reports.
    const denied = new RegExp(`/api/chain/state-machines/${slug}$`);
    let page = await open(`${server.url}/m/${slug}`, { allowFailed: denied });
    await page.locator('#denied').waitFor();
    expect(await page.locator('#denied').textContent()).toContain('share link');
    expect(await page.locator('#content').isHidden()).toBe(true);
    expect(await page.locator('#feed tr').count()).toBe(0);
    await page.close();

    const share = await server.call('POST', `/api/chain/state-machines/${slug}/share/set`, { key: owner.key, body: {} });
    expect(share.status).toBe(200);
    page = await open(`${server.url}/m/${slug}?share_token=${share.body.share_token}`);
    await page.locator('#row-2').waitFor();
    expect(await page.locator('#meta').textContent()).toContain('via share link');
    await expect.poll(() => page.locator('#live').textContent()).toBe('live');
    const appended = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'reading', payload: {} } });
    await page.locator(`#row-${appended.body.seq}`).waitFor({ timeout: 60_000 });
    await shot(page, 'explorer-private-shared.png');
    await page.close();

    page = await open(`${server.url}/m/${slug}`, { allowFailed: denied });
    await page.locator('#denied').waitFor();
    await page.fill('#key-input', owner.key);
    await page.click('#key-form button[type=submit]');
    await page.locator('#row-2').waitFor();
    expect(await page.locator('#meta').textContent()).toContain('your role: owner');
    await expect.poll(() => page.locator('#live').textContent()).toBe('live');
    const more = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'reading', payload: {} } });
    await page.locator(`#row-${more.body.seq}`).waitFor({ timeout: 60_000 });
    await page.click('#key-forget');
    await page.close();
  });

  it('finds an operation in the catalogue and tries it', async () => {
    const { slug } = await machine(server, { events: 1 });
    const page = await open(`${server.url}/catalog`);
    await page.locator('details.op').first().waitFor();
    await page.fill('#q', 'pohc validate');
    const op = page.locator('details.op[data-id="chain.validateChain"]');
    await op.waitFor();
    expect(await page.locator('details.op').count()).toBe(1);
    await op.locator('summary').click();
    await op.locator('textarea').fill(JSON.stringify({ slug }));
    await op.locator('button[type=submit]').click();
    await expect.poll(() => op.locator('pre').last().textContent()).toContain('"valid": true');
    await shot(page, 'explorer-catalog.png');
    await page.close();
  });
  it("says a machine has no token without asking for a supply it does not have, and shows a token's supply", async () => {
    const { slug, owner } = await machine(server, { events: 1 });
    const requested: string[] = [];
    let page = await open(`${server.url}/m/${slug}`, { before: async (p) => void p.on('request', (r) => requested.push(new URL(r.url()).pathname)) });
    await expect.poll(() => page.locator('#tally').textContent()).toBe('No token: this machine has not created its token yet.');
    expect(requested).not.toContain(`/api/chain/${slug}/tally/supply`);
    await page.close();

    const genesis = await server.call('POST', `/api/chain/${slug}/tally/token/genesis`, {
      key: owner.key,
      body: { name: 'Lab token', symbol: 'LAB', max_supply: 1000, mint_rate_per_tick: 2 },
    });
    expect(genesis.status, JSON.stringify(genesis.body)).toBe(200);
    page = await open(`${server.url}/m/${slug}`);
    await expect.poll(() => page.locator('#tally').textContent()).toContain('Max supply1000');
    expect(await page.locator('#tally').textContent()).toContain('2 per tick');
    await page.close();
  });

  it('hides the rows of an unticked type in the live feed, including rows that arrive later', async () => {
    const { slug, owner } = await machine(server, { events: 2 });
    for (let i = 0; i < 4; i++) {
      expect((await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'heartbeat', payload: { i } } })).status).toBe(200);
    }
    const page = await open(`${server.url}/m/${slug}`);
    await expect.poll(() => page.locator('#live').textContent()).toBe('live');
    const filter = page.locator('#type-filter');
    await expect.poll(() => filter.isVisible()).toBe(true);
    expect((await filter.locator('label').allTextContents()).map((t) => t.trim())).toEqual(['heartbeat (4)', 'machine.created (1)', 'reading (2)']);
    const visible = () => page.locator('#feed tr:visible').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.type));

    await filter.getByLabel('heartbeat').uncheck();
    expect(await visible()).toEqual(['reading', 'reading', 'machine.created']);
    expect(await page.locator('#feed-count').textContent()).toBe('showing 3 of 7 rows');
    const beat = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'heartbeat', payload: {} } });
    const reading = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'reading', payload: {} } });
    await page.locator(`#row-${reading.body.seq}`).waitFor({ timeout: 2000 });
    expect(await page.locator(`#row-${beat.body.seq}`).isHidden()).toBe(true);
    expect(await visible()).toEqual(['reading', 'reading', 'reading', 'machine.created']);
    expect(await filter.getByText('heartbeat (5)').count()).toBe(1);

    await filter.getByLabel('heartbeat').check();
    expect(await page.locator('#feed tr:visible').count()).toBe(9);
    expect(await page.locator('#feed-count').textContent()).toBe('');
    await page.close();
  });

  it('counts the MCP tools of the catalogue apart from the transport routes, with plurals', async () => {
    const page = await open(`${server.url}/catalog`);
    await page.locator('details.op').first().waitFor();
    const operations = await page.locator('details.op').count();
    expect(allTools.length).toBe(57);
    expect(await page.locator('#count').textContent()).toBe(`${operations} of ${operations} operations, ${allTools.length} tools`);
    await page.fill('#q', 'pohc validate');
    await expect.poll(() => page.locator('#count').textContent()).toBe(`1 of ${operations} operations, 1 tool`);
    await page.close();
  });

  it('shows a loading state on the machine page until the machine is read', async () => {
    const { slug } = await machine(server, { events: 0 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const page = await open(`${server.url}/m/${slug}`, {
      before: async (p) => {
        await p.route(`**/api/chain/state-machines/${slug}`, async (route) => {
          await held;
          await route.continue();
        });
      },
    });
    await page.locator('#title').waitFor();
    expect(await page.locator('#title').textContent()).toBe('Loading machine…');
    expect(await page.locator('#meta').textContent()).toContain('Loading');
    expect(await page.locator('main').getAttribute('aria-busy')).toBe('true');
    release();
    await expect.poll(() => page.locator('#title').textContent()).toMatch(/^Explorer demo/);
    expect(await page.locator('main').getAttribute('aria-busy')).toBe('false');
    expect(await page.locator('#meta').textContent()).toContain('1 row ·');
    await page.close();
  });

  it('says on the page why a contract cannot be verified without a key, and what Verify checks', async () => {
    const { slug, owner } = await machine(server, { events: 1, contract: true });
    const page = await open(`${server.url}/m/${slug}`);
    const check = page.locator('#contracts .verify-contract');
    await check.waitFor();
    const button = check.getByRole('button', { name: 'Verify proof chain' });
    expect(await button.isDisabled()).toBe(true);
    const why = check.locator('.notice');
    expect(await why.isVisible()).toBe(true);
    expect(await why.textContent()).toBe('Verifying needs your key with a role on this machine: save it with "Use my key" above.');
    expect(await button.getAttribute('aria-describedby')).toBe(await why.getAttribute('id'));
    expect(await check.textContent()).toContain('Checks every transition of this contract');
    // One check per contract, not one per row: the rows no longer carry a button that checks them all.
    expect(await page.locator('#contracts tbody button').count()).toBe(0);

    await page.fill('#key-input', owner.key);
    await page.click('#key-form button[type=submit]');
    await expect.poll(() => page.locator('#contracts .verify-contract button').isEnabled()).toBe(true);
    expect(await page.locator('#contracts .verify-contract .notice').count()).toBe(0);
    await page.click('#key-forget');
    await page.close();
  });

  it('fits a phone-sized window: header, feed, contracts and catalogue stay inside the viewport', async () => {
    const { slug, owner } = await machine(server, { events: 3, contract: true });
    const loaded: [string, string][] = [
      ['/', '#newest a'],
      [`/m/${slug}`, '#contracts svg'],
      ['/catalog', 'details.op'],
    ];
    for (const [path, ready] of loaded) {
      const url = `${server.url}${path}`;
      const page = await open(url, { viewport: PHONE });
      await page.locator(ready).first().waitFor();
      await expect.poll(() => page.getByText('Loading…').count()).toBe(0);
      const o = await overflowOf(page);
      expect(o.wide, url).toEqual([]);
      expect(o.scrollWidth, url).toBeLessThanOrEqual(o.innerWidth);
      const form = await page.locator('#key-form').boundingBox();
      expect(form!.x + form!.width, url).toBeLessThanOrEqual(PHONE.width);
      await page.close();
    }
    // The audit table scrolls sideways inside its own box; with a key, so does the contract's table.
    const page = await open(`${server.url}/m/${slug}`, { viewport: PHONE });
    await page.fill('#key-input', owner.key);
    await page.click('#key-form button[type=submit]');
    await page.locator('#contracts .verify-contract').waitFor();
    const wrap = await page
      .locator('.feed-wrap')
      .evaluate((el) => ({ client: el.clientWidth, scroll: el.scrollWidth, overflowX: getComputedStyle(el).overflowX }));
    expect(wrap.overflowX).toBe('auto');
    expect(wrap.client).toBeLessThanOrEqual(PHONE.width);
    const o = await overflowOf(page);
    expect(o.wide).toEqual([]);
    expect(o.scrollWidth).toBeLessThanOrEqual(o.innerWidth);
    await shot(page, 'explorer-phone.png');
    await page.click('#key-forget');
    await page.close();
  });
});

describe("the explorer's first screen", () => {
  it('explains machines and ticks, gives the MCP URL and a client entry to copy, and links the catalogue', async () => {
    const page = await open(`${server.url}/`);
    const intro = page.locator('#intro');
    await expect.poll(() => page.locator('#mcp-url').textContent()).toBe(`${server.url}/api/mcp`);
    const text = (await intro.textContent())!;
    expect(text).toMatch(/machine is a named, append-only log/);
    expect(text).toMatch(/tick is the chain's unit of time, 777 ms/);
    expect(text).toContain('npx core-server mcp');
    expect(text).toContain('mint_demo_key');
    const entry = JSON.parse((await page.locator('#mcp-entry').textContent())!);
    expect(entry.mcpServers.core).toMatchObject({ type: 'http', url: `${server.url}/api/mcp` });
    expect(await intro.locator('a[href="/catalog"]').count()).toBe(1);
    await page.close();
  });

  it('says an empty list in a sentence, not as a numbered item', async () => {
    const empty = await serverForTest();
    const page = await open(`${empty.url}/`);
    await expect.poll(() => page.locator('#newest-empty').textContent()).toBe('No public machine yet.');
    expect(await page.locator('#newest').isHidden()).toBe(true);
    expect(await page.locator('#newest li').count()).toBe(0);
    await expect.poll(() => page.locator('#active-empty').textContent()).toBe('Nothing wrote in the last 60 ticks.');
    expect(await page.locator('#active li').count()).toBe(0);
    await page.close();
  });

  it("lists the caller's own private machines once a key is saved", async () => {
    const { slug, owner } = await machine(server, { isPublic: false, events: 1 });
    const page = await open(`${server.url}/`);
    expect(await page.locator('#mine-panel').isHidden()).toBe(true);
    await page.fill('#key-input', owner.key);
    await page.click('#key-form button[type=submit]');
    await expect.poll(() => page.locator('#mine').textContent()).toContain(slug);
    expect(await page.locator(`#mine a[href="/m/${slug}"]`).count()).toBe(1);
    // The public lists still do not show it.
    expect(await page.locator('#newest').textContent()).not.toContain(slug);
    await page.click('#key-forget');
    await expect.poll(() => page.locator('#mine-panel').isHidden()).toBe(true);
    await page.close();
  });

  it("shows each audit row's wall-clock time beside its tick", async () => {
    const { slug } = await machine(server, { events: 2 });
    const page = await open(`${server.url}/m/${slug}`);
    await page.locator('#feed tr').first().waitFor();
    const row = page.locator('#feed tr').first();
    const tick = Number(await row.getAttribute('data-tick'));
    expect(await row.locator('time').getAttribute('datetime')).toBe(new Date(tick * 777).toISOString());
    expect((await row.locator('time').textContent())!.length).toBeGreaterThan(0);
    await page.close();
  });

  it('shows every column of an audit row at 390 px: rows stack, each value under its name', async () => {
    const { slug } = await machine(server, { events: 2 });
    const page = await open(`${server.url}/m/${slug}`, { viewport: PHONE });
    await page.locator('#feed tr').first().waitFor();
    const cells = await page
      .locator('#feed tr')
      .first()
      .evaluate((tr) =>
        Array.from(tr.children).map((td) => {
          const r = td.getBoundingClientRect();
          return { label: td.getAttribute('data-label'), text: td.textContent ?? '', left: r.left, right: r.right, width: r.width };
        }),
      );
    expect(cells.map((c) => c.label)).toEqual(['seq', 'tick', 'type', 'actor', 'hash', 'links to']);
    for (const c of cells) {
      expect(c.width, c.label!).toBeGreaterThan(0);
      expect(c.left, c.label!).toBeGreaterThanOrEqual(0);
      expect(c.right, c.label!).toBeLessThanOrEqual(PHONE.width);
      expect(c.text.trim(), c.label!).not.toBe('');
    }
    // Nothing of the row hides behind a sideways scroll.
    const wrap = await page.locator('.feed-wrap').evaluate((el) => ({ client: el.clientWidth, scroll: el.scrollWidth }));
    expect(wrap.scroll).toBeLessThanOrEqual(wrap.client);
    await shot(page, 'explorer-phone-feed.png');
    await page.close();
  });

  it("starts Try it from the schema's examples instead of an empty slug", async () => {
    const page = await open(`${server.url}/catalog`);
    await page.locator('details.op').first().waitFor();
    await page.fill('#q', 'pohc validate');
    const op = page.locator('details.op[data-id="chain.validateChain"]');
    await op.waitFor();
    await op.locator('summary').click();
    expect(JSON.parse(await op.locator('textarea').inputValue())).toEqual({ slug: 'my-first-machine' });
    await page.close();
  });
});
