import { errors } from '../../errors.js';
export const MACHINES = 'machines';
export const GRANTS = 'machine-roles';
export const READ_TOKENS = 'machine-read-tokens';
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
/** Slugs that would shadow the global `/api/chain/...` routes. */
const RESERVED = new Set([
    'state-machines', 'aggregate', 'active', 'fleet', 'newest', 'recent', 'rejection-log', 'seal', 'verify-anchor', 'api', 'core',
]);
export function checkSlug(slug) {
    if (!SLUG_PATTERN.test(slug)) {
        throw errors.validation(`Invalid slug "${slug}": use 1-64 characters of a-z, 0-9 and "-", not starting or ending with "-"`, { issues: [{ path: 'slug', message: 'invalid slug', code: 'invalid_slug' }] });
    }
    if (RESERVED.has(slug)) {
        throw errors.validation(`The slug "${slug}" is reserved by a route of this service; choose another`, {
            issues: [{ path: 'slug', message: 'reserved slug', code: 'reserved_slug' }],
        });
    }
}
export function chainStream(slug) {
    return `chain/${slug}`;
}
/** Encrypted payloads of a machine's rows, one row per chain row that kept a payload, in chain order. */
export function payloadStream(slug) {
    return `payloads/${slug}`;
}
/** The node's log of submissions rejected before they reached any chain. */
export const REJECTION_STREAM = 'node/rejections';
/** Whether the machine's share token exists and has not expired at `nowMs`. */
export function shareActive(machine, nowMs) {
    if (!machine.share_token_hash)
        return false;
    return !machine.share_token_expires_at || Date.parse(machine.share_token_expires_at) > nowMs;
}
export function grantId(slug, uid) {
    return `${slug}/${uid}`;
}
//# sourceMappingURL=machine.js.map