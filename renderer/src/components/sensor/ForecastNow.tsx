import { Link } from 'react-router';
import { API, request } from '../../api/client.ts';
import type { Job } from '../../api/types.ts';
import * as wire from '../../api/contracts.ts';
import { formatElapsed, formatTime } from '../../lib/time.ts';
import { JobStatus } from '../JobStatus.tsx';
import { ErrorNotice, Progress } from '../Status.tsx';
import { useFollowedJob } from '../../hooks/useFollowedJob.ts';

/** A forecast job's result, when it is one (the job contract holds every kind of result). */
const forecastOf = (job: Job) => (job.result && 'cycles' in job.result ? job.result : undefined);

/**
 * "Forecast now": forecasts the sensor from now over the server's default window, follows the
 * job and says how it went in the three states every job has: Finished, Finished with a warning
 * (too little history for a backtest: the method was chosen blind) or Failed (refused or failed,
 * with the reason).
 * @param onMade called once a forecast is stored, so that the chart and sources show it.
 */
export function ForecastNow({ sensorId, zone, onMade }: { sensorId: number; zone: string; onMade: () => void }) {
  const { job, failure, running, settled, elapsed, follow } = useFollowedJob({ onFinished: onMade });

  const start = () =>
    follow(async () => {
      const answer = await request(`${API}/sensors/${sensorId}/forecasts/trigger`, {
        method: 'POST',
        json: {},
        answer: wire.forecastTriggerAnswer,
      });
      return answer.job;
    });

  const result = job && forecastOf(job);
  // The job's own note (too little history for a backtest: the method was chosen blind) is its warning.
  const warning = job?.status === 'finished' ? result?.message : undefined;
  return (
    <div className="forecast-now" aria-label="Forecast now">
      <button type="button" onClick={start} disabled={running}>
        {running ? 'Forecasting…' : 'Forecast now'}
      </button>
      {running && <Progress label={`${job?.status === 'started' ? 'Forecasting' : 'Waiting for a worker'} · ${formatElapsed(elapsed)}`} />}
      {failure !== null && (
        <div className="job-state" role="status">
          <span className="badge failed">Failed</span>
          <ErrorNotice error={failure} />
        </div>
      )}
      {job && settled && (
        <div className="job-state" role="status">
          <p>
            {warning ? <span className="badge warned">Finished with a warning</span> : <JobStatus job={job} />}{' '}
            <Link to={`/jobs/${job.id}`}>job {job.id}</Link>
          </p>
          {job.status === 'failed' && <div className="notice error">{job.error ?? 'The forecast failed without a reason.'}</div>}
          {result && (
            <p>
              Forecast with {result.method} from {formatTime(new Date(result.start_ms).toISOString(), zone)} to{' '}
              {formatTime(new Date(result.end_ms).toISOString(), zone)} ({zone}); it shows in the chart as its own source.
            </p>
          )}
          {warning && (
            <section className="notice warn job-warnings" aria-label="Warnings">
              {warning}
            </section>
          )}
        </div>
      )}
    </div>
  );
}
