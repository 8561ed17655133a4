import type { Asset } from '../../api/types.ts';
import { parseAttributes } from '../../lib/attributes.ts';
import { Empty } from '../Status.tsx';

/** The flex-model and flex-context stored on the asset, which every trigger starts from. */
export function StoredFlexConfig({ asset }: { asset: Asset }) {
  const attributes = parseAttributes(asset.attributes);
  const parts = (['flex-model', 'flex-context'] as const).map((key) => [key, attributes[key]] as const);
  return (
    <div className="two-columns">
      {parts.map(([key, value]) => (
        <section key={key} aria-label={`Stored ${key}`}>
          <h3>{key}</h3>
          {value && typeof value === 'object' && Object.keys(value).length ? (
            <dl className="kv">
              {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
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
