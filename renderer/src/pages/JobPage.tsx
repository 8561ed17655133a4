import { Link, useParams } from 'react-router';
import { API } from '../api/client.ts';
import { jobPath, readJob } from '../api/jobs.ts';
import { JobStatus } from '../components/JobStatus.tsx';
import { Fact } from '../components/Facts.tsx';
import { ScheduleResult } from '../components/schedule/ScheduleResult.tsx';
import { ErrorNotice, Loading, Progress } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { usePolling } from '../hooks/usePolling.ts';
import { useSession } from '../app/session.tsx';
import { jobDuration, jobSummary } from '../lib/jobs.ts';
import { formatTime } from '../lib/time.ts';
import * as wire from '../api/contracts.ts';
import type { AutomationJobResult } from '../api/contracts.ts';

/** One scheduling job: its arguments, timing and result or error; refreshed while it runs. */
export function JobPage() {
  const { id } = useParams();
  const session = useSession();
  const job = useApi(jobPath(id!), undefined, readJob);
  const sensor = useApi(job.data?.sensor_id ? `${API}/sensors/${job.data.sensor_id}` : null, undefined, wire.sensorAnswer);
  const running = job.data?.status === 'queued' || job.data?.status === 'started';
  usePolling(job.reload, 1000, running);

  if (job.error) return <ErrorNotice error={job.error} />;
  if (!job.data) return <Loading what="Loading the job" />;
  const j = job.data;
  const zone = sensor.data?.timezone ?? session.user.timezone;
  const names = sensor.data ? { [sensor.data.id]: sensor.data.name } : {};
  return (
    <article className="page" aria-labelledby="job-title">
      <div className="page-head">
        <h1 id="job-title">
          Job <code>{j.id}</code>
        </h1>
        <JobStatus job={j} />
        <span className="muted">Times in {zone}</span>
      </div>
      <section className="card">
        <dl className="facts">
          {j.queue === 'automation' ? (
            <Fact term="Automation run">{automationRun(j.args)}</Fact>
          ) : (
            <Fact term="Sensor">
              {sensor.data ? <Link to={`/sensors/${sensor.data.id}`}>{sensor.data.name}</Link> : (j.sensor_id ?? '–')}
            </Fact>
          )}
          <Fact term="Asked for">{jobSummary(j, zone) || '–'}</Fact>
          <Fact term="Created">{formatTime(j.created_at, zone)}</Fact>
          <Fact term="Started">{formatTime(j.started_at, zone) || '–'}</Fact>
          <Fact term="Ran for">{jobDuration(j) || '–'}</Fact>
          {j.fallback_job_id && (
            <Fact term="Fallback">
              <Link to={`/jobs/${j.fallback_job_id}`}>{j.fallback_job_id}</Link>
            </Fact>
          )}
        </dl>
        {running && <Progress label={j.status === 'started' ? 'Computing' : 'Waiting for a worker'} />}
        <details>
          <summary>Arguments</summary>
          <pre className="json">{JSON.stringify(j.args, null, 2)}</pre>
        </details>
      </section>
      <section className="card" aria-label="Result">
        {j.queue === 'automation' ? <AutomationMade result={j.result} /> : <ScheduleResult job={j} zone={zone} names={names} />}
      </section>
    </article>
  );
}

/** @returns which automation a run is of, and the due time it stands for. */
function automationRun(args: unknown): string {
  const a = args as { automationId?: number; dueMs?: number } | null;
  return a?.automationId === undefined ? '–' : `automation #${a.automationId}, due ${a.dueMs ? new Date(a.dueMs).toISOString() : '?'}`;
}

/** What an automation run made: its forecasts and its schedule job, with links, and what the forecasts fed into the schedule. */
function AutomationMade({ result }: { result: unknown }) {
  const r = (result ?? {}) as Partial<AutomationJobResult>;
  if (!result) return <p className="muted">Nothing made yet.</p>;
  const fed = r.schedule_inputs;
  return (
    <div aria-label="Made by this run">
      <h2>Made by this run</h2>
      <ul>
        {(r.forecasts ?? []).map((f) => (
          <li key={f.sensor_id}>
            Forecast of <Link to={`/sensors/${f.sensor_id}`}>sensor #{f.sensor_id}</Link>
            {f.method ? ` (${f.method})` : ''}
          </li>
        ))}
        {r.schedule_job_id && (
          <li>
            Schedule: <Link to={`/jobs/${r.schedule_job_id}`}>job {r.schedule_job_id}</Link>
            {fed && (fed.inflexible_device_sensors.length > 0 || fed.consumption_price_sensor !== null) && (
              <span className="muted">
                {' '}
                — fed by the forecasts of{' '}
                {[
                  ...fed.inflexible_device_sensors.map((id) => `#${id} (inflexible device)`),
                  ...(fed.consumption_price_sensor !== null ? [`#${fed.consumption_price_sensor} (price)`] : []),
                ].join(', ')}
              </span>
            )}
          </li>
        )}
        {!r.forecasts?.length && !r.schedule_job_id && <li>Nothing.</li>}
      </ul>
    </div>
  );
}
