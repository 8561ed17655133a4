import { unrecorded } from '../../server/src/store/auditLog.ts';

/** Store writes that build a test's fixture: nobody made them, so they leave no audit entry to assert around. */
export const FIXTURE = unrecorded('a test fixture');
