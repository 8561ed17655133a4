import { useState } from 'react';
import { Link } from 'react-router';
import { API } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { Field } from '../components/Field.tsx';
import { JobStatus } from '../components/JobStatus.tsx';
import { LinkTable, LoadedView } from '../components/DataTable.tsx';
import { useApi } from '../hooks/useApi.ts';
import { jobDuration, jobSummary } from '../lib/jobs.ts';
import { formatTime } from '../lib/time.ts';
import * as wire from '../api/contracts.ts';
import { IdSelect } from '../components/IdSelect.tsx';

/** The scheduling jobs of an account, newest first, with state, timing, arguments and error. */
export function JobsPage() {
  const session = useSession();
  const zone = session.user.timezone;
  const [accountId, setAccountId] = useState(session.user.account_id);
  const accounts = useApi(session.isAdmin ? `${API}/accounts` : null, undefined, wire.accountList);
  const jobs = useApi(`${API}/jobs`, { account_id: accountId, limit: 200 }, wire.jobList);
  return (
    <section className="page" aria-labelledby="jobs-title">
      <div className="page-head">
        <h1 id="jobs-title">Jobs</h1>
        <button type="button" onClick={jobs.reload}>
          Refresh
        </button>
      </div>
      {accounts.data && accounts.data.length > 1 && (
        <Field label="Account">
          <IdSelect value={accountId} onChange={(e) => setAccountId(Number(e.target.value))} items={accounts.data} />
        </Field>
      )}
      <LoadedView state={jobs} what="Loading jobs">
        {(list) => (
          <LinkTable
            wrap="card table-wrap"
            columns={[`Created (${zone})`, 'Kind', 'State', 'Sensor', 'Asked for', 'Ran for', 'Error']}
            rows={list}
            empty="No jobs yet. Trigger a schedule from an asset's Schedule panel, or add an automation."
            link={(j) => ({ to: `/jobs/${j.id}`, text: formatTime(j.created_at, zone) })}
            cells={(j) => (
              <>
                <td>{j.queue}</td>
                <td>
                  <JobStatus job={j} />
                </td>
                <td>{j.sensor_id === null ? '–' : <Link to={`/sensors/${j.sensor_id}`}>#{j.sensor_id}</Link>}</td>
                <td>{jobSummary(j, zone)}</td>
                <td>{jobDuration(j)}</td>
                <td className="error-cell">{j.error ?? ''}</td>
              </>
            )}
          />
        )}
      </LoadedView>
    </section>
  );
}
