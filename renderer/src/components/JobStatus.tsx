import type { JobStatus as Status } from '../api/types.ts';

const labels: Record<Status, string> = { queued: 'Queued', started: 'Running', finished: 'Finished', failed: 'Failed' };

/** A job's state as a coloured badge with a text label (colour is never the only signal). */
export function JobStatus({ status }: { status: Status }) {
  return <span className={`badge ${status}`}>{labels[status]}</span>;
}
