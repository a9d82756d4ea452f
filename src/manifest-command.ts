import { readFile } from 'node:fs/promises';
import { checkManifest, pinnedKeysFrom } from './domain/manifest/manifest-verify.js';

export const VERIFY_MANIFEST_USAGE = `Usage: core-server verify-manifest FILE --key KEYFILE [--since VERSION]

Checks an update manifest offline (the JSON answer of GET /api/updates/manifest):
  - its Ed25519 signature over the canonical JSON of "manifest" must verify with the pinned key;
  - then lists the artifacts changed (and removed) after VERSION, or every artifact without --since.
  --key KEYFILE    the pinned node public key: an SPKI PEM, a JWK, or a JWK Set (GET /api/.well-known/jwks.json)
  --since VERSION  the registry_version you already have, e.g. r3
Exit code 0 when the signature verifies, 1 otherwise.
`;

/** `core-server verify-manifest`: prints the verdict and what changed, returns the exit code. */
export async function runVerifyManifest(args: readonly string[], out: (text: string) => void): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out(VERIFY_MANIFEST_USAGE);
    return 0;
  }
  let file: string | undefined;
  let keyFile: string | undefined;
  let since: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--key' || arg === '--since') {
      const value = args[++i];
      if (value === undefined) return usage(out, `${arg} needs a value`);
      if (arg === '--key') keyFile = value;
      else since = value;
    } else if (arg.startsWith('--')) {
      return usage(out, `unknown option ${arg}`);
    } else if (file === undefined) {
      file = arg;
    } else {
      return usage(out, 'give one manifest FILE');
    }
  }
  if (file === undefined) return usage(out, 'give the manifest FILE');
  if (keyFile === undefined) return usage(out, 'give the pinned public key with --key KEYFILE');
  let check;
  try {
    const pinned = pinnedKeysFrom(await readFile(keyFile, 'utf8'));
    check = checkManifest(JSON.parse(await readFile(file, 'utf8')), pinned, since);
  } catch (err) {
    out(`${file}: INVALID (${err instanceof Error ? err.message : String(err)})\nNOT VERIFIED\n`);
    return 1;
  }
  if (!check.valid) {
    out(`${file}: ${check.problem}\nNOT VERIFIED\n`);
    return 1;
  }
  out(`${file}: signature valid${check.key_id ? ` (node key ${check.key_id})` : ''}, registry_version ${check.registry_version}\n`);
  out(`${since ? `changed since ${since}` : 'artifacts'}: ${check.changed.length}\n`);
  for (const a of check.changed) out(`  ${a.registry_version}  ${a.sha256}  ${a.path}\n`);
  if (check.removed.length > 0) {
    out(`removed: ${check.removed.length}\n`);
    for (const r of check.removed) out(`  ${r.registry_version}  ${r.path}\n`);
  }
  out('VERIFIED\n');
  return 0;
}

function usage(out: (text: string) => void, problem: string): number {
  out(`${problem}\n\n${VERIFY_MANIFEST_USAGE}`);
  return 1;
}
