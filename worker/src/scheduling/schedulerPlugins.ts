/**
 * Scheduler plugins: the deployment's own scheduler modules, chosen per asset or sensor by the
 * `custom-scheduler` attribute. The attribute holds a *name*; only the operator decides which
 * files a name stands for, by the folder given at start (FLEXSITE_SCHEDULER_PLUGINS, listed by the
 * server's server/src/workers/pluginFolder.ts). A stored attribute therefore never becomes a path,
 * a URL or a module specifier.
 */

/** A plugin's name: a file name without its extension, never a path, URL scheme or `..`. */
export const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Registered plugins: name → absolute path of its module file. */
export type SchedulerPlugins = ReadonlyMap<string, string>;

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
