import type { MachinesService } from '../chain/machines.service.js';
import { hasRole } from '../identity/roles.js';
import type { ContractRecord } from './contract.types.js';
import { callerOf, listenerOf } from './listener-access.js';

/** Why a fire was not made: its principal no longer holds the right that setting the contract took. */
export const PRINCIPAL_LOST_ACCESS = 'principal_lost_access';

/**
 * Re-check at every wait, for contracts: a fire nobody asked for at that moment (a schedule, an
 * event) acts for the contract's principal (who set its current definition), so it is made only while
 * that principal still holds the operator role on the machine, the role setting a contract needed.
 * Read afresh at each fire: a member removed, or demoted to viewer, stops the contract's fires from the
 * next one on. Undefined when the fire may go ahead; else the refusal it is recorded with.
 */
export async function principalRefusal(machines: MachinesService, record: ContractRecord): Promise<{ code: string; message: string } | undefined> {
  const principal = listenerOf(record);
  const role = await machines.roleOf(record.slug, callerOf(principal));
  if (role !== undefined && hasRole(role, 'operator')) return undefined;
  return {
    code: PRINCIPAL_LOST_ACCESS,
    message: `not fired: ${principal.uid}, who set this contract, no longer holds the operator role on "${record.slug}"; an operator may take the contract over by editing it`,
  };
}
