import type { SelectHTMLAttributes } from 'react';

/** A sensor shown by its name and unit (a power sensor's with its sign), as the choices of a sensor say which it is. */
export const withUnit = (s: { name: string; unit: string; sign?: string | null }) =>
  `${s.name} (${s.sign ? `${s.unit}, ${s.sign}` : s.unit})`;
/** The same with its id, where two sensors may share a name. */
export const withUnitAndId = (s: { id: number; name: string; unit: string }) => `${withUnit(s)} #${s.id}`;

/**
 * A choice of one thing by id (a sensor, an asset type, an account), each shown by `label` (its
 * name unless told); `none` puts an empty first choice with that text before them.
 */
export function IdSelect<T extends { id: number; name: string }>({
  items,
  none,
  label = (item) => item.name,
  ...select
}: { items: readonly T[]; none?: string; label?: (item: T) => string } & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <select {...select}>
      {none !== undefined && <option value="">{none}</option>}
      {items.map((item) => (
        <option key={item.id} value={item.id}>
          {label(item)}
        </option>
      ))}
    </select>
  );
}
