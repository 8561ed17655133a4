import type { Knex } from 'knex';

/** Kinds of data source. `CLI script` marks data loaded with `add beliefs` under a source name. */
export const SOURCE_TYPES = ['user', 'scheduler', 'forecaster', 'reporter', 'demo script', 'CLI script'] as const;

/** Who or what recorded a belief. */
export interface DataSource {
  id: number;
  name: string;
  type: string;
  model: string | null;
  version: string | null;
  /** The uploading user, for sources of type `user`. */
  user_id: number | null;
  /** The account the source belongs to; null for system sources (schedulers, scripts). */
  account_id: number | null;
}

export interface SourceProps {
  name: string;
  type: string;
  model?: string | null;
  version?: string | null;
  userId?: number | null;
  accountId?: number | null;
}

export const columns = ['id', 'name', 'type', 'model', 'version', 'user_id', 'account_id'];

/** NULL never equals NULL in SQL, so optional identity columns need `IS NULL` when unset. */
function whereNullable(q: Knex.QueryBuilder, column: string, value: string | number | null): void {
  if (value === null) q.whereNull(column);
  else q.where(column, value);
}

/**
 * Finds the data source with exactly these properties. A user has one source of type `user`,
 * found by the user id whatever its name.
 * @param db the store or an open transaction.
 * @param props name, type and the optional model, version, user and account.
 * @returns the source, or undefined when there is none yet.
 */
export async function findSource(db: Knex | Knex.Transaction, props: SourceProps): Promise<DataSource | undefined> {
  const userId = props.userId ?? null;
  const q = db('data_source').select<DataSource[]>(columns).where({ type: props.type });
  if (props.type === 'user' && userId !== null) {
    q.where({ user_id: userId });
  } else {
    q.where({ name: props.name });
    whereNullable(q, 'model', props.model ?? null);
    whereNullable(q, 'version', props.version ?? null);
    whereNullable(q, 'user_id', userId);
  }
  const [found] = await q.orderBy('id').limit(1);
  return found;
}

/** @returns the source, or undefined. */
export async function getSource(db: Knex | Knex.Transaction, id: number): Promise<DataSource | undefined> {
  return db('data_source').select<DataSource[]>(columns).where({ id }).first();
}

export interface SourceFilter {
  /** Only these sources. */
  ids?: number[];
  /** Only sources with data on this sensor. */
  sensorId?: number;
  /**
   * Only sources of these accounts, plus system sources (no account and no user); leave out to
   * list every source.
   */
  visibleToAccounts?: number[];
}

/**
 * Lists data sources, by id.
 * @param db the store.
 * @param filter which sources.
 * @returns the sources.
 */
export async function listSources(db: Knex | Knex.Transaction, filter: SourceFilter = {}): Promise<DataSource[]> {
  const q = db('data_source as d')
    .select<DataSource[]>(columns.map((c) => `d.${c}`))
    .orderBy('d.id');
  if (filter.ids) q.whereIn('d.id', filter.ids);
  if (filter.sensorId !== undefined) {
    q.whereIn('d.id', db('sensor_source').select('source_id').where({ sensor_id: filter.sensorId }));
  }
  const accounts = filter.visibleToAccounts;
  if (accounts) {
    q.where((w) => w.whereIn('d.account_id', accounts).orWhere((system) => system.whereNull('d.account_id').whereNull('d.user_id')));
  }
  return q;
}
