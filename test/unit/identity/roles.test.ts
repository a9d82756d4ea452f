import { describe, expect, it } from 'vitest';
import { canManageRole, hasRole, maxRole, minRole, roleOfScope } from '../../../src/domain/identity/roles.js';

describe('the role model (owner > admin > operator > viewer)', () => {
  it('lets a higher role do what a lower one may', () => {
    expect(hasRole('owner', 'viewer')).toBe(true);
    expect(hasRole('admin', 'admin')).toBe(true);
    expect(hasRole('operator', 'admin')).toBe(false);
    expect(hasRole('viewer', 'operator')).toBe(false);
    expect(hasRole('none', 'viewer')).toBe(false);
  });

  it('caps a role by the scope of the key used', () => {
    expect(minRole('owner', roleOfScope('read'))).toBe('viewer');
    expect(minRole('owner', roleOfScope('write'))).toBe('operator');
    expect(minRole('viewer', roleOfScope('admin'))).toBe('viewer');
    expect(minRole('none', 'admin')).toBe('none');
    expect(maxRole('none', 'operator')).toBe('operator');
    expect(maxRole('admin', 'viewer')).toBe('admin');
  });

  it('never lets anyone demote or remove the owner, or grant ownership', () => {
    expect(canManageRole('owner', 'owner', 'viewer')).toBe(false);
    expect(canManageRole('owner', 'owner', 'none')).toBe(false);
    expect(canManageRole('owner', 'viewer', 'owner')).toBe(false);
  });

  it('lets admins and the owner manage roles up to their own', () => {
    expect(canManageRole('owner', 'none', 'admin')).toBe(true);
    expect(canManageRole('owner', 'admin', 'none')).toBe(true);
    expect(canManageRole('admin', 'none', 'operator')).toBe(true);
    expect(canManageRole('admin', 'admin', 'viewer')).toBe(true);
    expect(canManageRole('operator', 'none', 'viewer')).toBe(false);
    expect(canManageRole('viewer', 'viewer', 'none')).toBe(false);
  });
});
