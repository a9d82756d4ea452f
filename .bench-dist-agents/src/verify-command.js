import { readFile } from 'node:fs/promises';
import { parseArtifact, verifyArtifacts } from './domain/chain/offline-verify.js';
export const VERIFY_USAGE = `Usage: core-server verify FILE [FILE...] [--genesis-tick N] [--key KEY_ID]

Checks offline, without a server:
  - a seal (GET /api/chain/seal): its key id, the artifact signature and every checkpoint signature;
  - an exported chain (JSON lines, a JSON array of rows, or the answer of explore or activity): every
    row's hash and link, consecutive seqs, and the genesis seed when it starts at seq 0;
  - a chain given with a seal: each checkpoint of that machine must still be in the chain with the
    signed hash (a missing tail or a rewritten history fails).
  --genesis-tick N   the machine's genesis tick (otherwise searched just before the first row's tick)
  --key KEY_ID       fail unless the seal is signed by this node key id (the kid in GET /api/.well-known/jwks.json)
Exit code 0 when everything verifies, 1 otherwise.
`;
/** `core-server verify`: prints one verdict per file (and each problem found) and returns the exit code. */
export async function runVerify(args, out) {
    const files = [];
    const opts = {};
    if (args.includes('--help') || args.includes('-h')) {
        out(VERIFY_USAGE);
        return 0;
    }
    for (let i = 0; i < args.length; i++) {
        const arg = args[i];
        if (arg === '--genesis-tick' || arg === '--key') {
            const value = args[++i];
            if (value === undefined)
                return usage(out, `${arg} needs a value`);
            if (arg === '--key')
                opts.expectKeyId = value;
            else if (/^\d+$/.test(value))
                opts.genesisTick = Number(value);
            else
                return usage(out, `--genesis-tick takes a tick number, got "${value}"`);
        }
        else if (arg.startsWith('--')) {
            return usage(out, `unknown option ${arg}`);
        }
        else {
            files.push(arg);
        }
    }
    if (files.length === 0)
        return usage(out, 'give at least one FILE');
    const artifacts = [];
    for (const name of files) {
        try {
            artifacts.push({ name, artifact: parseArtifact(await readFile(name, 'utf8')) });
        }
        catch (err) {
            out(`${name}: INVALID (${err instanceof Error ? err.message : String(err)})\n`);
            return 1;
        }
    }
    const report = verifyArtifacts(artifacts, opts);
    for (const line of report.lines)
        out(`${line}\n`);
    out(report.valid ? 'VERIFIED\n' : 'NOT VERIFIED\n');
    return report.valid ? 0 : 1;
}
function usage(out, problem) {
    out(`${problem}\n\n${VERIFY_USAGE}`);
    return 1;
}
//# sourceMappingURL=verify-command.js.map