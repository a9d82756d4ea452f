/** Roles from lowest to highest authority. */
const RANK = { viewer: 1, operator: 2, admin: 3, owner: 4 };
function rank(role) {
    return role === 'none' ? 0 : RANK[role];
}
/** Whether a holder of `actual` may do what needs `required` (owner > admin > operator > viewer). */
export function hasRole(actual, required) {
    return rank(actual) >= RANK[required];
}
/** The higher of two roles. */
export function maxRole(a, b) {
    if (a === 'none')
        return b;
    if (b === 'none')
        return a;
    return rank(a) >= rank(b) ? a : b;
}
/** The lower of two roles: a key's scope caps what its holder's role allows. */
export function minRole(a, b) {
    if (a === 'none' || b === 'none')
        return 'none';
    return rank(a) <= rank(b) ? a : b;
}
/** The role a developer key's scope grants at most. */
export function roleOfScope(scope) {
    return scope === 'admin' ? 'admin' : scope === 'write' ? 'operator' : 'viewer';
}
/**
 * Whether `actor` may grant, change or revoke `target`'s role `to`: admins and the owner manage
 * roles, nobody can grant a role above their own, and the owner is never demoted or removed.
 */
export function canManageRole(actor, target, to) {
    if (!hasRole(actor, 'admin'))
        return false;
    if (target === 'owner' || to === 'owner')
        return false;
    if (actor === 'owner')
        return true;
    return rank(actor) >= rank(to) && rank(actor) >= rank(target);
}
//# sourceMappingURL=roles.js.map