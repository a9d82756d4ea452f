import { errors } from '../../errors.js';
import { loadCatalogue } from './skill-catalogue.js';
export const ATTACHED_SKILLS = 'agent-skills';
export function createSkillsService(deps) {
    const { store, clock, blobs } = deps;
    let loading;
    const catalogue = () => (loading ??= loadCatalogue(deps.dir));
    const docId = (uid, name) => `${uid}/${name}`;
    const publicOf = ({ name, description, bytes, sha256, attached_at }) => ({ name, description, bytes, sha256, attached_at });
    async function find(name) {
        const all = await catalogue();
        const skill = all.find((s) => s.name === name);
        if (!skill)
            throw errors.notFound(`No skill "${name}" in the catalogue; available: ${all.map((s) => s.name).join(', ')}`, { name });
        return skill;
    }
    return {
        catalogue,
        preview: find,
        async attach(uid, name) {
            const skill = await find(name);
            const existing = await store.docs.get(ATTACHED_SKILLS, docId(uid, name));
            if (existing?.sha256 === skill.sha256)
                return { skill: publicOf(existing), changed: false };
            const ref = await blobs.put(uid, Buffer.from(skill.body, 'utf8'));
            const doc = {
                uid,
                name,
                description: skill.description,
                bytes: skill.bytes,
                sha256: skill.sha256,
                attached_at: new Date(clock.now()).toISOString(),
                blob_seq: ref.seq,
            };
            let changed = true;
            const stored = await store.docs.update(ATTACHED_SKILLS, docId(uid, name), (current) => {
                // A concurrent attach of the same body got there first: keep its record.
                if (current?.sha256 === skill.sha256) {
                    changed = false;
                    return undefined;
                }
                return doc;
            });
            return { skill: publicOf(stored), changed };
        },
        async detach(uid, name) {
            return { changed: await store.docs.delete(ATTACHED_SKILLS, docId(uid, name)) };
        },
        async list(uid) {
            const docs = await store.docs.list(ATTACHED_SKILLS, (d) => d.uid === uid);
            return docs.map(publicOf).sort((a, b) => (a.name < b.name ? -1 : 1));
        },
        async body(uid, name) {
            const doc = await store.docs.get(ATTACHED_SKILLS, docId(uid, name));
            if (!doc)
                throw errors.notFound(`Skill "${name}" is not attached to ${uid}`, { name });
            return (await blobs.get(uid, { seq: doc.blob_seq, sha256: doc.sha256 })).toString('utf8');
        },
    };
}
//# sourceMappingURL=skills.service.js.map