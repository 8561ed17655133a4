import fs from 'node:fs';
import path from 'node:path';

/**
 * Scheduler plugins: the deployment's own scheduler modules, chosen per asset or sensor by the
 * `custom-scheduler` attribute. The attribute holds a *name*; only the operator decides which
 * files a name stands for, by the folder given at start (FLEXSITE_SCHEDULER_PLUGINS). A stored
 * attribute therefore never becomes a path, a URL or a module specifier.
 */

/** A plugin's name: a file name without its extension, never a path, URL scheme or `..`. */
export const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Registered plugins: name → absolute path of its module file. */
export type SchedulerPlugins = ReadonlyMap<string, string>;

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

/**
 * Why a `custom-scheduler` value cannot be used, or null when it names a registered plugin.
 *
 * @param value the attribute's value as stored or sent.
 * @param plugins the registered plugins.
 * @returns a message for people, naming what is registered.
 */
export function unregisteredSchedulerReason(value: unknown, plugins: SchedulerPlugins): string | null {
  if (typeof value === 'string' && PLUGIN_NAME.test(value) && plugins.has(value)) return null;
  const registered = plugins.size === 0 ? 'none is registered on this appliance' : `registered: ${[...plugins.keys()].sort().join(', ')}`;
  const shown = typeof value === 'string' ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value) : typeof value;
  return `custom-scheduler ${shown} is not a registered scheduler plugin (${registered})`;
}
