import { API } from '../../api/client.ts';
import { useApi } from '../../hooks/useApi.ts';
import { useRange } from '../../hooks/useRange.ts';
import { rangeQuery } from '../../lib/time.ts';
import { VegaChart } from '../charts/VegaChart.tsx';
import { RangeControls } from '../RangeControls.tsx';
import { Empty, ErrorNotice } from '../Status.tsx';
import * as wire from '../../api/contracts.ts';

/** The asset's chart of its `sensors_to_show`, over a window the user picks; the spec comes from the server. */
export function AssetChart({ assetId, zone, hasSensors }: { assetId: number; zone: string; hasSensors: boolean }) {
  const { size, anchor, range, setRange } = useRange(zone);
  const query = { ...rangeQuery(range), include_data: true, width: 'container' };
  const chart = useApi(hasSensors ? `${API}/assets/${assetId}/chart/` : null, query, wire.chartSpec);
  return (
    <>
      <RangeControls size={size} anchor={anchor} zone={zone} onChange={setRange} />
      <ErrorNotice error={chart.error} />
      {hasSensors ? <VegaChart spec={chart.data} label="Asset chart" /> : <Empty>Add sensors to see them charted here.</Empty>}
    </>
  );
}
