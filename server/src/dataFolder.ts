import path from 'node:path';

/** Where things live inside a data folder (`FLEXSITE_DATA_DIR`). */
export interface DataFolder {
  root: string;
  /** The SQLite store. */
  store: string;
  /** Held by the server that uses the store (see db/sqlite/storeLock.ts). */
  lock: string;
  /** JSON log lines, rotated by size. */
  logFile: string;
  /** Copies of the store taken automatically, e.g. before a restore replaces it. */
  backups: string;
}

/**
 * The layout of a data folder; the one place that names its files.
 * @param dataDir the data folder.
 * @returns absolute paths of its parts.
 */
export function dataFolder(dataDir: string): DataFolder {
  const root = path.resolve(dataDir);
  return {
    root,
    store: path.join(root, 'flexsite.sqlite'),
    lock: path.join(root, 'flexsite.lock'),
    logFile: path.join(root, 'logs', 'flexsite.log'),
    backups: path.join(root, 'backups'),
  };
}
