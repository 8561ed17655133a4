import fs from 'node:fs';
import path from 'node:path';
import { PLUGIN_NAME } from '../../../worker/src/tasks.ts';

/*
 * The operator's scheduler plugin folder, read once at start: the names found here are the only
 * modules a worker thread may load for a `custom-scheduler` attribute (see
 * worker/src/scheduling/schedulerPlugins.ts for the name rule).
 */

/** Why a folder cannot serve as the plugin folder, for the operator at start. */
export class PluginFolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginFolderError';
  }
}

/**
 * Lists the plugins of the operator's folder: every regular `<name>.mjs` or `<name>.js` file in it
 * (not in subfolders; symbolic links are skipped, so the folder's content is what the operator sees).
 *
 * @param folder an absolute folder path, or null when the deployment has no plugins.
 * @returns the registered plugins (empty for null).
 * @throws PluginFolderError when the folder cannot be read or two files claim one name.
 */
export function findSchedulerPlugins(folder: string | null): Map<string, string> {
  const plugins = new Map<string, string>();
  if (folder === null) return plugins;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch (err) {
    throw new PluginFolderError(`FLEXSITE_SCHEDULER_PLUGINS: cannot read ${folder} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  for (const entry of entries) {
    const match = /^(.*)\.(mjs|js)$/.exec(entry.name);
    if (!entry.isFile() || !match || !PLUGIN_NAME.test(match[1])) continue;
    if (plugins.has(match[1])) throw new PluginFolderError(`FLEXSITE_SCHEDULER_PLUGINS: two modules are named ${match[1]} in ${folder}`);
    plugins.set(match[1], path.join(folder, entry.name));
  }
  return plugins;
}
