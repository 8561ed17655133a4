import type { ReactNode } from 'react';

/** A fieldset of checkboxes, one per item (sensors, roles) and named by it, for choosing several of them by id. */
export function Checklist<T extends { id: number; name: string }>({
  legend,
  items,
  chosen,
  onChange,
  errors,
  className,
  children,
}: {
  legend: ReactNode;
  items: T[];
  chosen: number[];
  onChange: (ids: number[]) => void;
  errors?: string[];
  className?: string;
  /** What follows the checkboxes (e.g. buttons). */
  children?: ReactNode;
}) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {errors && <small className="field-error">{errors.join(' ')}</small>}
      {items.map((item) => (
        <label key={item.id} className="checkbox">
          <input
            type="checkbox"
            checked={chosen.includes(item.id)}
            onChange={(e) => onChange(e.target.checked ? [...chosen, item.id] : chosen.filter((id) => id !== item.id))}
          />{' '}
          {item.name}
        </label>
      ))}
      {children}
    </fieldset>
  );
}
