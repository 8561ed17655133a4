import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';
import type { Automation } from '../store/automations.ts';
import type { Asset } from '../store/assets.ts';
import type { SensorInContext } from '../store/sensors.ts';
import type { Principal } from '../policies/principal.ts';
import type { ResolvedSchedule } from '../commands/triggerSchedule.ts';
import { jobReferences } from '../scheduling/jobReferences.ts';
import type { AutomationJobResult } from '../contracts/responses.ts';

/**
 * An automation due every minute resolves the same flex configuration into the same job fourteen
 * times a quarter hour. What a run resolved is kept here with a stamp of everything the
 * resolution read apart from sensor data, so that the next run can skip the resolution while the
 * stamp holds; it still reads the state of charge and the inputs' figures as every run does, and
 * finds its job only by the full key (see `runAutomation.ts`). The stamp is its rights check as
 * well: what the maker may use rests on their roles and account (the principal, resolved every
 * run, and the auth epoch), the named sensors' assets and those assets' accounts (audited).
 */

/** What a run resolved, and from what. */
export interface ResolvedRun {
  stamp: string;
  resolved: ResolvedSchedule;
  /** The key of the job it answered with: the data it read then. */
  key: string;
  scheduleInputs: AutomationJobResult['schedule_inputs'];
}

/** What a resolution depends on besides the data of its sensors. */
export interface StampParts {
  automation: Automation;
  principal: Principal;
  sensor: SensorInContext;
  asset: Asset;
  /** The run's start on the sensor's grid: runs of one grid step have the same window. */
  gridStartMs: number;
  /** The recurring SoC targets the run adds to its flex-model (they depend on the due minute). */
  recurring: unknown;
  /** The sensors the resolved job names (none before a first resolution). */
  sensorIds: readonly number[];
}

/** A named sensor as the stamp reads it: what reading its state of charge and figures needs, too. */
export interface StampedSensor {
  id: number;
  generic_asset_id: number;
  unit: string;
  event_resolution_ms: number;
  attributes: string;
}

/** The id of an account's notice of a subject (an automation's open spell of failures): a subquery. */
export const OPEN_SPELL = '(SELECT id FROM notification WHERE account_id = ? AND subject = ?)';

/** The automation as a resolution depends on it: its run's own bookkeeping moves every run. */
export const configOf = ({ lastDueMs: _due, lastJobId: _job, ...config }: Automation): string => JSON.stringify(config);

/**
 * The newest audit entry, the auth epoch and the rows of the named sensors (`count` of them),
 * with the id of the automation's open spell of failures when `spell`: one kept statement.
 */
const written = (count: number, spell: boolean) =>
  `SELECT w.audit, w.epoch, w.failing, s.id, s.generic_asset_id, s.unit, s.event_resolution_ms, s.attributes FROM (SELECT (SELECT MAX(id) FROM audit_log) AS audit, (SELECT epoch FROM auth_epoch WHERE id = 1) AS epoch, ${
    spell ? OPEN_SPELL : 'NULL'
  } AS failing) w LEFT JOIN sensor s ON s.id IN (${Array(count).fill('?').join(', ')}) ORDER BY s.id`;

/** A stamp, and what its statement read besides. */
export interface Stamp {
  stamp: string;
  /** The named sensors' rows, as read for the stamp (a run reads their data with them). */
  sensors: ReadonlyMap<number, StampedSensor>;
  /** Whether the spell of failures asked about was open (false when none was asked about). */
  spellOpen: boolean;
}

/** The sensors a resolved job names, with the one scheduled. */
export const namedSensors = (resolved: ResolvedSchedule, scheduledId: number): number[] => [
  ...new Set([scheduledId, ...jobReferences(resolved.spec).map((r) => r.id)]),
];

/**
 * The stamp: every write of an audited record (assets and their flex configuration, sensors,
 * users, accounts, automations, recurring targets) adds an audit entry, and every change of users
 * and roles raises the auth epoch, in whichever process it is made; the attributes of the named
 * sensors are read as well, as the scheduler and legacy devices write some without an entry.
 */
export async function readStamp(db: Knex, parts: StampParts, spell?: { accountId: number; subject: string }): Promise<Stamp> {
  const { automation, principal, sensor, asset, gridStartMs, recurring, sensorIds } = parts;
  const ids = [...new Set(sensorIds)].sort((a, b) => a - b);
  type Row = StampedSensor & { audit: unknown; epoch: unknown; failing: unknown; id: number | null };
  const rows = await dialectOf(db).query<Row>(db, written(ids.length, spell !== undefined), [
    ...(spell ? [spell.accountId, spell.subject] : []),
    ...ids,
  ]);
  // The same columns the stamp always held (a sensor not found has no row).
  const sensors = rows.flatMap(({ id, generic_asset_id, unit, event_resolution_ms, attributes }) =>
    id === null
      ? []
      : [
          {
            id: Number(id),
            generic_asset_id: Number(generic_asset_id),
            unit,
            event_resolution_ms: Number(event_resolution_ms),
            attributes,
          },
        ],
  );
  // A user's sign-in and last request times move without a change of rights.
  const rights =
    principal.kind === 'operator'
      ? principal
      : (({ last_login_at: _login, last_seen_at: _seen, ...user }) => user)(principal.kind === 'user' ? principal.user : principal.owner);
  const [{ audit, epoch, failing }] = rows;
  return {
    stamp: JSON.stringify([configOf(automation), rights, sensor, asset, gridStartMs, recurring, String(audit), String(epoch), sensors]),
    sensors: new Map(sensors.map((s) => [s.id, s])),
    spellOpen: failing !== null && failing !== undefined,
  };
}

/** The stamp alone (see `readStamp`). */
export const resolutionStamp = async (db: Knex, parts: StampParts): Promise<string> => (await readStamp(db, parts)).stamp;
