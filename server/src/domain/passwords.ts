import crypto from 'node:crypto';
import bcrypt from 'bcryptjs';

// Cost 12 keeps a hash around a quarter second: slow for guessing, fine for a login.
const COST = 12;

/** @returns a bcrypt hash of the password. */
export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, COST);

/** @returns whether the password matches the hash. */
export const checkPassword = (password: string, hash: string): Promise<boolean> => bcrypt.compare(password, hash);

/** @returns a random password nobody knows, for resets. */
export const randomPassword = (): string => crypto.randomBytes(24).toString('base64url');
