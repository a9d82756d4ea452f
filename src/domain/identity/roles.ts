import type { Role } from './caller.js';

/** Roles from lowest to highest authority. */
const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3, owner: 4 };

function rank(role: Role | 'none'): number {
  return role === 'none' ? 0 : RANK[role];
}

/** Whether a holder of `actual` may do what needs `required` (owner > admin > operator > viewer). */
export function hasRole(actual: Role | 'none', required: Role): boolean {
  return rank(actual) >= RANK[required];
}

/** The higher of two roles. */
export function maxRole(a: Role | 'none', b: Role | 'none'): Role | 'none' {
  if (a === 'none') return b;
  if (b === 'none') return a;
  return rank(a) >= rank(b) ? a : b;
}

/** The lower of two roles: a key's scope caps what its holder's role allows. */
export function minRole(a: Role | 'none', b: Role | 'none'): Role | 'none' {
  if (a === 'none' || b === 'none') return 'none';
  return rank(a) <= rank(b) ? a : b;
}

/** The role a developer key's scope grants at most. */
export function roleOfScope(scope: 'read' | 'write' | 'admin'): Role {
  return scope === 'admin' ? 'admin' : scope === 'write' ? 'operator' : 'viewer';
}

/**
 * Whether `actor` may grant, change or revoke `target`'s role `to`: admins and the owner manage
 * roles, nobody can grant a role above their own, and the owner is never demoted or removed.
 */
export function canManageRole(actor: Role | 'none', target: Role | 'none', to: Role | 'none'): boolean {
  if (!hasRole(actor, 'admin')) return false;
  if (target === 'owner' || to === 'owner') return false;
  if (actor === 'owner') return true;
  return rank(actor) >= rank(to) && rank(actor) >= rank(target);
}
