import { ensureUiBuilt } from '../../scripts/ensureUi.ts';

/** Builds the web UI before any test file runs, if `renderer/dist` is missing or stale. */
export default async function setup(): Promise<void> {
  await ensureUiBuilt();
}
