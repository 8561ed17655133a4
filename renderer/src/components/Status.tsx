import type { ReactNode } from 'react';
import { messageOf } from '../api/errors.ts';

/** A loading indicator that screen readers announce. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {what}…
    </p>
  );
}

/** An error for people: never "[object Object]". */
export function ErrorNotice({ error, children }: { error: unknown; children?: ReactNode }) {
  if (!error) return null;
  return (
    <div className="notice error" role="alert">
      {messageOf(error)}
      {children}
    </div>
  );
}

/** What a list or chart shows when there is nothing in it. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A progress bar for long operations; indeterminate without a fraction. */
export function Progress({ label, fraction }: { label: string; fraction?: number }) {
  return (
    <div className="progress" role="status">
      <progress aria-label={label} max={1} value={fraction} />
      <span>{label}</span>
    </div>
  );
}

/** A confirmation that something went through, announced to screen readers. */
export function OkNotice({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p className="notice ok" role="status">
      {children}
    </p>
  );
}
