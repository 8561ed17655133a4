import { useId, type ReactElement, type ReactNode } from 'react';
import { cloneElement } from 'react';

interface FieldProps {
  label: string;
  /** The input; it receives id and aria attributes. */
  children: ReactElement<Record<string, unknown>>;
  /** Messages for this field, e.g. from a 422 answer. */
  errors?: string[];
  hint?: ReactNode;
}

/** A labelled form control with its hint and its error messages right under it. */
export function Field({ label, children, errors, hint }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : '', errors?.length ? errorId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={errors?.length ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, 'aria-describedby': describedBy, 'aria-invalid': errors?.length ? true : undefined })}
      {hint && (
        <small id={hintId} className="hint">
          {hint}
        </small>
      )}
      {errors?.length ? (
        <small id={errorId} className="field-error">
          {errors.join(' ')}
        </small>
      ) : null}
    </div>
  );
}
