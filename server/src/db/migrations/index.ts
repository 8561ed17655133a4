import type { Knex } from 'knex';
import * as m0001 from './0001_accounts_users_assets_sensors.ts';
import * as m0002 from './0002_beliefs.ts';
import * as m0003 from './0003_jobs.ts';
import * as m0004 from './0004_udi_events.ts';
import * as m0005 from './0005_flex_config_annotations.ts';
import * as m0006 from './0006_forecasts_automations.ts';
import * as m0007 from './0007_auth_epoch.ts';
import * as m0008 from './0008_job_error_kind.ts';
import * as m0010 from './0010_asset_description_external_id.ts';
import * as m0012 from './0012_cockpit.ts';
import * as m0017 from './0017_audit_log.ts';
import * as m0018 from './0018_recurring_soc_targets.ts';
import * as m0019 from './0019_webhook_outbox.ts';
import * as m0020 from './0020_password_chosen.ts';
import * as m0021 from './0021_mqtt_links.ts';
import * as m0022 from './0022_mqtt_last_malformed.ts';
import * as m0023 from './0023_price_connector_status.ts';
import * as m0024 from './0024_site_asset_type.ts';
import * as m0025 from './0025_schedule_money_fallback.ts';
import * as m0026 from './0026_job_progress.ts';
import * as m0027 from './0027_store_changes.ts';

interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/** Migrations in order. Listed in code so that bundled and packaged builds find them without a folder scan. */
export const migrations: [string, Migration][] = [
  ['0001_accounts_users_assets_sensors', m0001],
  ['0002_beliefs', m0002],
  ['0003_jobs', m0003],
  ['0004_udi_events', m0004],
  ['0005_flex_config_annotations', m0005],
  ['0006_forecasts_automations', m0006],
  ['0007_auth_epoch', m0007],
  ['0008_job_error_kind', m0008],
  ['0010_asset_description_external_id', m0010],
  ['0012_cockpit', m0012],
  ['0017_audit_log', m0017],
  ['0018_recurring_soc_targets', m0018],
  ['0019_webhook_outbox', m0019],
  ['0020_password_chosen', m0020],
  ['0021_mqtt_links', m0021],
  ['0022_mqtt_last_malformed', m0022],
  ['0023_price_connector_status', m0023],
  ['0024_site_asset_type', m0024],
  ['0025_schedule_money_fallback', m0025],
  ['0026_job_progress', m0026],
  ['0027_store_changes', m0027],
];

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => migrations,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
