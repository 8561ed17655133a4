import path from 'node:path';

/** A backup, restore or export that cannot be done; the message is meant for the operator. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Another process (or another server in this one) holds the data folder. */
export class StoreBusyError extends Error {
  constructor(readonly lockFile: string) {
    super(`A Flexsite server is using the data folder ${path.dirname(lockFile)}; stop it first.`);
    this.name = 'StoreBusyError';
  }
}
