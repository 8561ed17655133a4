import { API } from '../../api/client.ts';
import * as wire from '../../api/contracts.ts';
import { useApi } from '../../hooks/useApi.ts';
import { DataTable } from '../DataTable.tsx';
import { Empty, ErrorNotice, Loading } from '../Status.tsx';

const percent = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);
const figure = (x: number | null) => (x === null ? '–' : x.toPrecision(3));

/**
 * How the sensor's forecasts are made: the method and its backtest skill against seasonal-naive, per horizon.
 * @param forecast whether a forecaster has written data on the sensor.
 */
export function ForecastSkill({ sensorId, unit, forecast }: { sensorId: number; unit: string; forecast: boolean }) {
  // Asked only once a forecaster wrote data here: before that the answer is a 404.
  const model = useApi(forecast ? `${API}/sensors/${sensorId}/forecasts/backtest` : null, undefined, wire.forecastBacktest);
  if (!forecast) return <Empty>Not forecast yet. Forecasts appear in the chart as their own source.</Empty>;
  if (model.error) return <ErrorNotice error={model.error} />;
  if (!model.data) return <Loading what="Loading the forecast backtest" />;
  const b = model.data.backtest;
  if (!b)
    return (
      <p>
        Forecast with {model.data.method}. {model.data.message ?? 'Too little history for a backtest.'}
      </p>
    );
  return (
    <>
      <p aria-label="Forecast skill">
        Forecast with <strong>{b.chosen}</strong>, backtested over {b.origins} days: skill <strong>{percent(b.skill)}</strong> against{' '}
        {b.baseline} (smaller errors are better).
        {/* A skill of 0 % against itself says nothing: say what it means. */}
        {b.chosen === b.baseline && ' The baseline itself was chosen: no other method beat it in the backtest.'}
      </p>
      <DataTable
        label="Backtest per horizon"
        columns={['Hours ahead', `MAE (${unit})`, `RMSE (${unit})`, 'Seasonal-naive MAE', 'Skill']}
        rows={b.perHorizon}
        row={(h) => (
          <tr key={h.fromH}>
            <th scope="row">
              {h.fromH}–{h.toH ?? '…'}
            </th>
            <td className="num">{figure(h.mae)}</td>
            <td className="num">{figure(h.rmse)}</td>
            <td className="num">{figure(h.baselineMae)}</td>
            <td className="num">{percent(h.skill)}</td>
          </tr>
        )}
      />
    </>
  );
}
