import type { Method } from '../../http/routes.ts';
import { legacyVersions } from '../sunset.ts';

export type VersionName = '1.0' | '1.1' | '1.2' | '1.3' | '2.0';

/** One legacy version: its path prefix, its number, its documentation page and its routes. */
export interface LegacyVersion {
  prefix: string;
  version: VersionName;
  doc: string;
  routes: [Method, string][];
}

/** The served versions: the same route table as the sunset ones. */
export const servedVersions: LegacyVersion[] = legacyVersions.map((v) => ({ ...v, version: v.version as VersionName }));

/** Whether a version is the given one or later ('1.0' < '1.1' < … < '2.0' compare as text). */
export const atLeast = (v: LegacyVersion, version: VersionName) => v.version >= version;
