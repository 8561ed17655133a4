import { columns, findSource, type DataSource, type SourceProps } from '../sources.ts';
import type { Knex } from 'knex';

/**
 * Finds the data source with exactly these properties (see `findSource`), creating it on first use.
 * @param db the store or an open transaction.
 * @param props name, type and the optional model, version, user and account.
 * @returns the source.
 */
export async function getOrCreateSource(db: Knex | Knex.Transaction, props: SourceProps): Promise<DataSource> {
  const found = await findSource(db, props);
  if (found) return found;
  const [created] = await db('data_source')
    .insert({
      name: props.name,
      type: props.type,
      model: props.model ?? null,
      version: props.version ?? null,
      user_id: props.userId ?? null,
      account_id: props.accountId ?? null,
    })
    .returning<DataSource[]>(columns);
  return created;
}
