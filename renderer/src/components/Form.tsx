import type { FormEvent, ReactNode } from 'react';
import { ApiError } from '../api/errors.ts';
import type { Submit } from '../hooks/useSubmit.ts';
import { ErrorNotice } from './Status.tsx';

/** A submit's error for the whole form: left out when the server named the fields at fault, which show it themselves. */
export function FormError({ error }: { error: unknown }) {
  if (error instanceof ApiError && Object.keys(error.fields).length) return null;
  return <ErrorNotice error={error} />;
}

/** A form's submit button: says what it is doing while busy, and cannot be pressed twice. */
export function SubmitButton({
  busy = false,
  busyLabel,
  disabled = false,
  children,
}: {
  busy?: boolean;
  busyLabel?: string;
  /** Whether the form cannot be sent as it is (e.g. two passwords differ). */
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <button type="submit" className="primary" disabled={busy || disabled}>
      {busy && busyLabel ? busyLabel : children}
    </button>
  );
}

/** The row of buttons under a form, and a short confirmation once the last save went through. */
export function SaveBar({ saved = false, savedText = 'Saved.', children }: { saved?: boolean; savedText?: string; children: ReactNode }) {
  return (
    <div className="actions">
      {children}
      {saved && (
        <span role="status" className="ok">
          {savedText}
        </span>
      )}
    </div>
  );
}

/**
 * The page of a form used without a session (sign in, set up, passwords): a card in the middle
 * of the screen, titled by its heading.
 */
export function AuthForm({
  id,
  title,
  wide = false,
  onSubmit,
  children,
}: {
  id: string;
  title: string;
  wide?: boolean;
  onSubmit: (e: FormEvent) => void;
  children: ReactNode;
}) {
  return (
    <main id="main" className="auth-page">
      <form className={wide ? 'card auth wide' : 'card auth'} onSubmit={onSubmit} aria-labelledby={id}>
        <h1 id={id}>{title}</h1>
        {children}
      </form>
    </main>
  );
}

/** The end of a form: its error (unless its fields show it) and its submit button. */
export function SubmitBar({ submitting, busyLabel, children }: { submitting: Submit; busyLabel?: string; children: ReactNode }) {
  return (
    <>
      <FormError error={submitting.error} />
      <SaveBar>
        <SubmitButton busy={submitting.busy} busyLabel={busyLabel}>
          {children}
        </SubmitButton>
      </SaveBar>
    </>
  );
}

/** A form for adding something, folded away under its summary until opened. */
export function FoldedForm({
  summary,
  label,
  onSubmit,
  children,
}: {
  summary: string;
  /** The form's accessible name. */
  label: string;
  onSubmit: (e: FormEvent) => void;
  children: ReactNode;
}) {
  return (
    <details>
      <summary>{summary}</summary>
      <form className="grid-form" onSubmit={onSubmit} aria-label={label}>
        {children}
      </form>
    </details>
  );
}
