import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { API, request } from '../../api/client.ts';
import type { Asset, Job } from '../../api/types.ts';
import { useFollowedJob } from '../../hooks/useFollowedJob.ts';
import { formatElapsed, isoToLocalInput, localInputToIso, nextHourMs } from '../../lib/time.ts';
import { DataTable, RowLink } from '../DataTable.tsx';
import { Field } from '../Field.tsx';
import { JobStatus } from '../JobStatus.tsx';
import { ErrorNotice, Progress } from '../Status.tsx';
import { ScheduleResult } from '../schedule/ScheduleResult.tsx';
import { storedFlexModel, type SiteDevice } from './useSiteDevices.ts';
import * as wire from '../../api/contracts.ts';

interface Props {
  site: Asset;
  devices: SiteDevice[];
  zone: string;
  canSchedule: boolean;
}

/**
 * The Schedule panel of a site: its devices planned together in one job, each with the
 * flex-model stored on it and the site's flex-context (FlexMeasures 1.0's asset trigger), so the
 * battery, the car and the panels share one connection and one price.
 */
export function SiteSchedulePanel({ site, devices, zone, canSchedule }: Props) {
  const [start, setStart] = useState(() => isoToLocalInput(nextHourMs(), zone));
  const [hours, setHours] = useState('24');
  const jobs = useFollowedJob();
  const scheduled = devices.filter((d) => Object.keys(storedFlexModel(d.asset)).length > 0);
  const names = useMemo(() => Object.fromEntries(devices.flatMap((d) => d.sensors.map((s) => [s.id, s.name]))), [devices]);

  if (!canSchedule) return <p className="muted">Only members of this site's account can compute schedules for it.</p>;
  if (!scheduled.length)
    return <p className="empty">None of this site's devices can be scheduled yet: add a battery, an EV charger or a process.</p>;

  function compute(e: FormEvent) {
    e.preventDefault();
    jobs.setFailure(null);
    void jobs.follow(async () => {
      const answer = await request(`${API}/assets/${site.id}/schedules/trigger`, {
        answer: wire.triggerAnswer,
        method: 'POST',
        json: { start: localInputToIso(start, zone), duration: `PT${hours.trim()}H` },
      });
      return answer.schedule;
    });
  }

  const { job, running } = jobs;
  return (
    <div className="schedule-panel">
      <p>
        Plans {scheduled.map((d) => d.asset.name).join(', ')} together, each with its stored settings and the site's prices, house load and
        panels.
      </p>
      <form onSubmit={compute} className="grid-form" aria-label="Schedule the site">
        <Field label={`Start (${zone})`}>
          <input type="datetime-local" required value={start} onChange={(e) => setStart(e.target.value)} />
        </Field>
        <Field label="Hours">
          <input type="number" required min={1} max={168} step={1} value={hours} onChange={(e) => setHours(e.target.value)} />
        </Field>
        <div className="actions wide">
          <button type="submit" className="primary" disabled={running}>
            {running ? 'Scheduling…' : 'Compute the site’s schedule'}
          </button>
        </div>
      </form>
      <ErrorNotice error={jobs.failure} />
      {job && (
        <section className="job-state" aria-live="polite" aria-label="Site scheduling job">
          <p>
            Job <Link to={`/jobs/${job.id}`}>{job.id}</Link> <JobStatus job={job} />
          </p>
          {running && (
            <Progress label={`${job.status === 'started' ? 'Computing' : 'Waiting for a worker'} · ${formatElapsed(jobs.elapsed)}`} />
          )}
          <DeviceResults job={job} devices={devices} />
          <ScheduleResult job={job} zone={zone} names={names} />
        </section>
      )}
    </div>
  );
}

const kwh = (mwh: number) => `${(Math.round(mwh * 1e4) / 10).toLocaleString()} kWh`;

/** Each device's part of the plan: energy charged and discharged, and the state of charge it ends with. */
function DeviceResults({ job, devices }: { job: Job; devices: SiteDevice[] }) {
  const result = job.result && 'devices' in job.result ? job.result : undefined;
  if (!result?.devices) return null;
  const stepH = result.step_ms / 3_600_000;
  const deviceOf = (sensorId: number) => devices.find((d) => d.sensors.some((s) => s.id === sensorId));
  return (
    <DataTable
      label="Each device's plan"
      columns={['Device', 'Charges', 'Discharges', 'Ends at']}
      rows={result.devices}
      row={(r) => {
        const device = deviceOf(r.sensor_id);
        // Consumption is positive in the job's result: charging above zero, feeding the site below.
        const charged = r.power_mw.reduce((sum, p) => sum + Math.max(p, 0) * stepH, 0);
        const discharged = r.power_mw.reduce((sum, p) => sum + Math.max(-p, 0) * stepH, 0);
        const end = r.soc_mwh?.at(-1);
        return (
          <tr key={r.sensor_id}>
            <RowLink to={device ? `/assets/${device.asset.id}` : `/sensors/${r.sensor_id}`}>
              {device?.asset.name ?? `sensor ${r.sensor_id}`}
            </RowLink>
            <td>{kwh(charged)}</td>
            <td>{kwh(discharged)}</td>
            <td>{end === undefined ? '–' : kwh(end)}</td>
          </tr>
        );
      }}
    />
  );
}
