/** Shapes of the API answers the UI reads, inferred from the server's response contracts. */
export type {
  Account,
  AccountOverview,
  Asset,
  AssetType,
  ChartRecord,
  ChartSpec,
  Job,
  JobResult,
  JobStatus,
  Role,
  Sensor,
  SetupState,
  SocTarget,
  Source,
  User,
} from './contracts.ts';
