import { createHash } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createManifestService } from '../../src/domain/manifest/manifest.service.js';
import { checkManifest, pinnedKeysFrom } from '../../src/domain/manifest/manifest-verify.js';
import { packageRoot } from '../../src/lib/paths.js';
import { runVerifyManifest } from '../../src/manifest-command.js';
import { NO_KEY_MESSAGE } from '../../src/errors.js';
import { mintKey, startTestCore, tempDir, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';
import { storageOf } from '../helpers/repositories.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const server = (): Promise<TestServer> => serverForTest();

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

describe('GET /api/updates/manifest', () => {
  it('lists the catalog and resources files with their SHA-256, signed by the node key', async () => {
    const s = await server();
    const user = await mintKey(s);
    const res = await s.call('GET', '/api/updates/manifest', { key: user.key });
    expect(res.status).toBe(200);
    const { manifest, signature } = res.body;
    expect(manifest.registry_version).toBe('r1');
    expect(manifest.since_version).toBeNull();
    const paths = manifest.artifacts.map((a: any) => a.path);
    expect(paths).toContain('catalog/tools.json');
    expect(paths).toContain('resources/skills/getting-started.md');
    expect(paths.every((p: string) => p.startsWith('catalog/') || p.startsWith('resources/'))).toBe(true);
    const tools = manifest.artifacts.find((a: any) => a.path === 'catalog/tools.json');
    const bytes = await readFile(path.join(packageRoot(), 'catalog/tools.json'));
    expect(tools).toMatchObject({ name: 'tools.json', sha256: sha256(bytes), size_bytes: bytes.length, registry_version: 'r1' });

    const jwks = await s.call('GET', '/api/.well-known/jwks.json');
    expect(signature).toMatchObject({ alg: 'Ed25519', key_id: jwks.body.keys[0].kid });
    const pinned = pinnedKeysFrom(JSON.stringify(jwks.body));
    expect(checkManifest(res.body, pinned)).toMatchObject({ valid: true, registry_version: 'r1' });
    const altered = structuredClone(res.body);
    altered.manifest.artifacts[0].sha256 = '0'.repeat(64);
    expect(checkManifest(altered, pinned)).toMatchObject({ valid: false });
  });

  it('needs a user key: 401 without one, 403 for a machine key', async () => {
    const s = await server();
    const user = await mintKey(s);
    const machine = await s.call('POST', '/api/chain/state-machines', { key: user.key, body: { slug: 'mf-lab' } });
    const anon = await s.call('GET', '/api/updates/manifest');
    expect(anon.status).toBe(401);
    expect(anon.body.error.message).toBe(NO_KEY_MESSAGE);
    const byMachine = await s.call('GET', '/api/updates/manifest', { key: machine.body.api_key });
    expect(byMachine.status).toBe(403);
  });

  it('filters by since_version and refuses a malformed one', async () => {
    const s = await server();
    const user = await mintKey(s);
    const since = await s.call('GET', '/api/updates/manifest?since_version=r1', { key: user.key });
    expect(since.body.manifest).toMatchObject({ since_version: 'r1', artifacts: [], removed: [] });
    const bad = await s.call('GET', '/api/updates/manifest?since_version=latest', { key: user.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/look like "r3"/);
  });
});

describe('registry versions', () => {
  it('records a new version when an artifact changes, and attributes each file to the version that changed it', async () => {
    const core = await startTestCore();
    const { dir: root, cleanup } = await tempDir('core-manifest-');
    cleanups.push(async () => {
      await core.cleanup();
      await cleanup();
    });
    await mkdir(path.join(root, 'catalog'), { recursive: true });
    await mkdir(path.join(root, 'resources/skills'), { recursive: true });
    await writeFile(path.join(root, 'catalog/tools.json'), '{"tools":[]}');
    await writeFile(path.join(root, 'resources/skills/a.md'), '# a');
    await writeFile(path.join(root, 'resources/skills/b.md'), '# b');
    const deps = { ...storageOf(core.store), clock: core.clock, nodeKeys: core.services.nodeKeys, root };

    const first = await createManifestService(deps).get();
    expect(first.manifest.registry_version).toBe('r1');
    expect((await createManifestService(deps).get()).manifest.registry_version).toBe('r1');

    await writeFile(path.join(root, 'resources/skills/a.md'), '# a, revised');
    await unlink(path.join(root, 'resources/skills/b.md'));
    const second = await createManifestService(deps).get();
    expect(second.manifest.registry_version).toBe('r2');
    const versions = Object.fromEntries(second.manifest.artifacts.map((a) => [a.path, a.registry_version]));
    expect(versions).toEqual({ 'catalog/tools.json': 'r1', 'resources/skills/a.md': 'r2' });
    expect(second.manifest.removed).toEqual([{ path: 'resources/skills/b.md', registry_version: 'r2' }]);

    const since = await createManifestService(deps).get('r1');
    expect(since.manifest.artifacts.map((a) => a.path)).toEqual(['resources/skills/a.md']);
    const pinned = pinnedKeysFrom(core.services.nodeKeys.publicKeyPem);
    expect(checkManifest(since, pinned, 'r1')).toMatchObject({ valid: true, changed: [{ path: 'resources/skills/a.md' }] });
    expect(checkManifest(since, pinned)).toMatchObject({ valid: false });
  });
});

describe('core-server verify-manifest', () => {
  it('verifies a saved manifest against a pinned JWKS or PEM and lists what changed since a version', async () => {
    const s = await server();
    const user = await mintKey(s);
    const { dir, cleanup } = await tempDir('core-verify-manifest-');
    cleanups.push(cleanup);
    const manifest = (await s.call('GET', '/api/updates/manifest', { key: user.key })).body;
    await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    await writeFile(path.join(dir, 'jwks.json'), JSON.stringify((await s.call('GET', '/api/.well-known/jwks.json')).body));
    await writeFile(path.join(dir, 'node.pem'), s.core.services.nodeKeys.publicKeyPem);
    const run = async (...args: string[]) => {
      let text = '';
      const code = await runVerifyManifest(args, (t) => void (text += t));
      return { code, text };
    };

    const all = await run(path.join(dir, 'manifest.json'), '--key', path.join(dir, 'jwks.json'));
    expect(all.code).toBe(0);
    expect(all.text).toMatch(/signature valid .*registry_version r1/);
    expect(all.text).toContain('catalog/tools.json');
    expect(all.text).toMatch(/VERIFIED\n$/);
    const since = await run(path.join(dir, 'manifest.json'), '--key', path.join(dir, 'node.pem'), '--since', 'r1');
    expect(since.code).toBe(0);
    expect(since.text).toContain('changed since r1: 0');

    const other = await startTestCore();
    cleanups.push(() => other.cleanup());
    await writeFile(path.join(dir, 'other.pem'), other.services.nodeKeys.publicKeyPem);
    const wrongKey = await run(path.join(dir, 'manifest.json'), '--key', path.join(dir, 'other.pem'));
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.text).toMatch(/does not verify with the pinned key[\s\S]*NOT VERIFIED/);
    expect((await run(path.join(dir, 'manifest.json'))).code).toBe(1);
  });
});
