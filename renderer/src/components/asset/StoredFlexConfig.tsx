import type { Asset } from '../../api/types.ts';
import { storedFlex } from '../../lib/attributes.ts';
import { Empty } from '../Status.tsx';

/** The flex-model and flex-context stored on the asset, which every trigger starts from. */
export function StoredFlexConfig({ asset }: { asset: Asset }) {
  const { model, context } = storedFlex(asset);
  const parts = [
    ['flex-model', model],
    ['flex-context', context],
  ] as const;
  return (
    <div className="two-columns">
      {parts.map(([key, value]) => (
        <section key={key} aria-label={`Stored ${key}`}>
          <h3>{key}</h3>
          {Object.keys(value).length ? (
            <dl className="kv">
              {Object.entries(value).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{typeof v === 'object' ? JSON.stringify(v) : String(v)}</dd>
                </div>
              ))}
            </dl>
          ) : (
            <Empty>None stored; schedules use the sensor and asset attributes.</Empty>
          )}
        </section>
      ))}
    </div>
  );
}
