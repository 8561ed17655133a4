import { useState } from 'react';
import { Link } from 'react-router';
import { z } from 'zod';
import { API, request } from '../../api/client.ts';
import * as cockpit from '../../../../server/src/contracts/cockpit.ts';
import { useApi } from '../../hooks/useApi.ts';
import { usePolling } from '../../hooks/usePolling.ts';
import { formatTime } from '../../lib/time.ts';
import { Empty, ErrorNotice } from '../Status.tsx';

/** How often the notifications are asked for again. */
const POLL_MS = 10_000;

const notificationList = z.array(cockpit.notification);
type Notification = z.infer<typeof cockpit.notification>;

/** What each kind of notice is, in a few words, and whether it is a failure or a warning. */
const kinds: Record<Notification['kind'], { title: string; tone: 'failed' | 'warned' }> = {
  'schedule-failed': { title: 'Schedule failed', tone: 'failed' },
  'schedule-fallback': { title: 'Schedule fell back', tone: 'failed' },
  'schedule-warnings': { title: 'Schedule with warnings', tone: 'warned' },
  'target-missed': { title: 'Target missed', tone: 'warned' },
  'sensor-stale': { title: 'Sensor stale', tone: 'warned' },
  'automation-failed': { title: 'Automation failed', tone: 'failed' },
  'prices-failed': { title: 'Prices not fetched', tone: 'failed' },
};

/**
 * The account's unacknowledged notifications, polled: what happened, when (in the site's zone:
 * the notice's sensor's, else `zone`), links to the job and the sensor it is about, a button to
 * acknowledge each and one for all.
 */
export function NeedsAttention({ zone }: { zone: string }) {
  const attention = useApi(`${API}/notifications`, { unacknowledged: true }, notificationList);
  usePolling(attention.reload, POLL_MS);
  const [ackError, setAckError] = useState<unknown>();

  const acknowledge = async (path: string) => {
    try {
      await request(`${API}/notifications/${path}`, { method: 'POST', json: {} });
      setAckError(undefined);
      attention.reload();
    } catch (err) {
      setAckError(err);
    }
  };

  const list = attention.data;
  return (
    <>
      <ErrorNotice error={attention.error ?? ackError} />
      {list && list.length === 0 && <Empty>Nothing needs attention.</Empty>}
      {list && list.length > 0 && (
        <div className="card attention">
          <div className="actions">
            <button type="button" onClick={() => void acknowledge('acknowledge')}>
              Acknowledge all ({list.length})
            </button>
          </div>
          <ul aria-label="Notifications">
            {list.map((n) => (
              <Notice key={n.id} n={n} zone={n.timezone ?? zone} onAcknowledge={() => void acknowledge(`${n.id}/acknowledge`)} />
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

/** One notice: its kind as a badge (a word, not colour alone), its time and zone, its words and links. */
function Notice({ n, zone, onAcknowledge }: { n: Notification; zone: string; onAcknowledge: () => void }) {
  const kind = kinds[n.kind];
  return (
    <li data-kind={n.kind}>
      <span className={`badge ${kind.tone}`}>
        <span aria-hidden="true">{kind.tone === 'failed' ? '✖ ' : '⚠ '}</span>
        {kind.title}
      </span>{' '}
      <time dateTime={n.created_at}>
        {formatTime(n.created_at, zone)} <span className="muted">{zone}</span>
      </time>
      <p>{n.message}</p>
      <div className="actions">
        {n.job_id && <Link to={`/jobs/${n.job_id}`}>Open the job</Link>}
        {n.sensor_id !== null && <Link to={`/sensors/${n.sensor_id}`}>Open {n.sensor_name ?? 'the sensor'}</Link>}
        <button type="button" onClick={onAcknowledge}>
          Acknowledge
        </button>
      </div>
    </li>
  );
}
