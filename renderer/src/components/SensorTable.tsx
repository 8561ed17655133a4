import type { ReactNode } from 'react';
import { signConvention } from '../lib/attributes.ts';
import { LinkTable } from './DataTable.tsx';

interface SensorRow {
  id: number;
  name: string;
  unit: string;
  event_resolution: string;
  timezone: string;
  entity_address?: string;
  /** Stored attributes (JSON), when known: a power sensor's unit then says how it is signed. */
  attributes?: string;
}

type SensorColumn = 'Unit' | 'Resolution' | 'Time zone' | 'Entity address';

/** What each column of a sensor shows. */
const cells: Record<SensorColumn, (s: SensorRow) => ReactNode> = {
  Unit: (s) => {
    const sign = s.attributes === undefined ? undefined : signConvention({ unit: s.unit, attributes: s.attributes });
    return sign ? `${s.unit}, ${sign}` : s.unit;
  },
  Resolution: (s) => s.event_resolution,
  'Time zone': (s) => s.timezone,
  'Entity address': (s) => <code>{s.entity_address}</code>,
};

/** Sensors in a table, each named by a link to its page, with the columns asked for in their order. */
export function SensorTable({
  sensors,
  columns,
  label,
  empty,
}: {
  sensors: readonly SensorRow[];
  columns: SensorColumn[];
  label?: string;
  empty?: ReactNode;
}) {
  return (
    <LinkTable
      label={label}
      columns={['Sensor', ...columns]}
      rows={sensors}
      empty={empty}
      link={(s) => ({ to: `/sensors/${s.id}`, text: s.name })}
      cells={(s) => columns.map((c) => <td key={c}>{cells[c](s)}</td>)}
    />
  );
}
