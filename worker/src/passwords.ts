import bcrypt from 'bcryptjs';

// Cost 12 keeps a hash around a quarter second: slow for guessing, fine for a login.
const COST = 12;

/**
 * @returns a bcrypt hash of the password. Slow on purpose: the server runs it in its password
 * threads (server/src/workers/passwordPool.ts), the CLI and tests in process.
 */
export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, COST);

/** @returns whether the password matches the hash. */
export const checkPassword = (password: string, hash: string): Promise<boolean> => bcrypt.compare(password, hash);

/**
 * A hash at the same cost of a random password that was thrown away: logins with an unknown
 * e-mail are checked against it, so they take as long as those with a known one.
 */
export const UNKNOWN_USER_HASH = '$2b$12$rDtsp2Gt73ps2iAfk2Slie76w74Q8JTHb..SllDGNhDSCL4sHFGQm';

/** @returns a random password nobody knows, for resets. */
export const randomPassword = (): string => Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(24))).toString('base64url');
