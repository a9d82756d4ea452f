import { sha256Hex } from '../../lib/hash.js';
export function blobStream(uid) {
    return `agent-blobs/${uid}`;
}
export function createBlobStore(deps) {
    const { store, clock } = deps;
    return {
        async put(uid, content) {
            const sha256 = sha256Hex(content);
            const row = await store.logs.append(blobStream(uid), () => ({
                type: 'blob',
                tick: clock.tick(),
                sha256,
                bytes: content.length,
                data: content.toString('base64'),
            }));
            return { seq: row.seq, sha256, bytes: content.length };
        },
        async get(uid, ref) {
            const row = await store.logs.get(blobStream(uid), ref.seq);
            const content = row ? Buffer.from(row.data, 'base64') : undefined;
            if (!content || row.sha256 !== ref.sha256 || sha256Hex(content) !== ref.sha256) {
                throw new Error(`blob ${ref.seq} of ${uid} is missing or does not match ${ref.sha256}`);
            }
            return content;
        },
    };
}
//# sourceMappingURL=blob-store.js.map