import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { API } from '../api/client.ts';
import { jobPath, readJob } from '../api/jobs.ts';
import { JobStatus } from '../components/JobStatus.tsx';
import { ScheduleResult } from '../components/schedule/ScheduleResult.tsx';
import { ErrorNotice, Loading, Progress } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { useSession } from '../app/session.tsx';
import { jobDuration, jobSummary } from '../lib/jobs.ts';
import { formatTime } from '../lib/time.ts';
import * as wire from '../api/contracts.ts';

/** One scheduling job: its arguments, timing and result or error; refreshed while it runs. */
export function JobPage() {
  const { id } = useParams();
  const session = useSession();
  const job = useApi(jobPath(id!), undefined, readJob);
  const sensor = useApi(job.data?.sensor_id ? `${API}/sensors/${job.data.sensor_id}` : null, undefined, wire.sensorAnswer);
  const running = job.data?.status === 'queued' || job.data?.status === 'started';
  const { reload } = job;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(reload, 1000);
    return () => clearInterval(timer);
  }, [running, reload]);

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
          <div>
            <dt>Sensor</dt>
            <dd>{sensor.data ? <Link to={`/sensors/${sensor.data.id}`}>{sensor.data.name}</Link> : (j.sensor_id ?? '–')}</dd>
          </div>
          <div>
            <dt>Asked for</dt>
            <dd>{jobSummary(j, zone) || '–'}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatTime(j.created_at, zone)}</dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>{formatTime(j.started_at, zone) || '–'}</dd>
          </div>
          <div>
            <dt>Ran for</dt>
            <dd>{jobDuration(j) || '–'}</dd>
          </div>
          {j.fallback_job_id && (
            <div>
              <dt>Fallback</dt>
              <dd>
                <Link to={`/jobs/${j.fallback_job_id}`}>{j.fallback_job_id}</Link>
              </dd>
            </div>
          )}
        </dl>
        {running && <Progress label={j.status === 'started' ? 'Computing' : 'Waiting for a worker'} />}
        <details>
          <summary>Arguments</summary>
          <pre className="json">{JSON.stringify(j.args, null, 2)}</pre>
        </details>
      </section>
      <section className="card" aria-label="Result">
        <ScheduleResult job={j} zone={zone} names={names} />
      </section>
    </article>
  );
}
