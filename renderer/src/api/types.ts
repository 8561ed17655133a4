/** Shapes of the API answers the UI reads (FlexMeasures 0.18 wire format, plus the UI endpoints). */

export interface Asset {
  id: number;
  name: string;
  latitude: number | null;
  longitude: number | null;
  generic_asset_type_id: number;
  account_id: number | null;
  parent_asset_id: number | null;
  /** JSON text. */
  attributes: string;
  /** JSON text; sent once some flex configuration is stored (always in the 1.0 dialect). */
  flex_context?: string;
  flex_model?: string;
}

export interface AssetType {
  id: number;
  name: string;
  description: string | null;
}

export interface Sensor {
  id: number;
  name: string;
  unit: string;
  timezone: string;
  event_resolution: string;
  entity_address: string;
  /** JSON text. */
  attributes: string;
  generic_asset_id: number;
}

export interface User {
  id: number;
  email: string;
  username: string;
  account_id: number;
  active: boolean;
  timezone: string;
  flexmeasures_roles: number[];
  last_login_at: string | null;
  last_seen_at: string | null;
}

export interface Role {
  id: number;
  name: string;
  description: string;
}

export interface Account {
  id: number;
  name: string;
  consultancy_account_id: number | null;
  account_roles: { id: number; name: string }[];
}

export interface AccountOverview extends Account {
  assets: Asset[];
  users: User[];
}

export type JobStatus = 'queued' | 'started' | 'finished' | 'failed';

export interface Job {
  id: string;
  queue: string;
  status: JobStatus;
  account_id: number | null;
  sensor_id: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  attempts: number;
  args: unknown;
  error: string | null;
  fallback_job_id: string | null;
  result?: JobResult | null;
}

/** A state-of-charge target of a job: at an instant, or over a window. */
export interface SocTarget {
  valueMwh: number;
  atMs?: number;
  startMs?: number;
  endMs?: number;
}

/** What a scheduling job stores: per device power and SoC, site power, prices and costs per step. */
export interface JobResult {
  start_ms: number;
  end_ms: number;
  step_ms: number;
  soc_unit?: string;
  total_cost?: number;
  devices: {
    sensor_id: number;
    power_mw: number[];
    /** One more value than steps: the state at every step boundary. */
    soc_mwh?: number[];
    soc_min_mwh?: number;
    soc_max_mwh?: number;
    soc_targets?: SocTarget[];
  }[];
  site_power_mw?: number[];
  cost_per_step?: number[];
  consumption_price?: number[];
  production_price?: number[];
  scheduler_info?: { scheduler?: string };
}

/** One belief as the chart endpoints give it. */
export interface ChartRecord {
  sensor_id: number;
  sensor: string;
  unit: string;
  event_start: string;
  event_value: number;
  belief_time: string;
  source: string;
  source_id: number;
  source_type: string;
  local_time: number;
}

export interface Source {
  id: number;
  name: string;
  type: string;
  model: string | null;
  version: string | null;
}

/** A Vega-Lite specification as the chart endpoints return it. */
export type ChartSpec = Record<string, unknown>;
