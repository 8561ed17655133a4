import { useEffect, useRef, useState } from 'react';
import { ErrorNotice, Loading } from '../Status.tsx';
import { fitWidth } from './fitWidth.ts';

interface Props {
  /** The Vega-Lite spec with its data; undefined while it loads. */
  spec: Record<string, unknown> | undefined;
  /** What the chart shows, for screen readers and tests. */
  label: string;
}

/** Widths are rounded to this step, so that small resizes do not redraw the chart; finer on a phone, where 40 px is much. */
const widthStep = (px: number) => (px < 640 ? 8 : 40);

/**
 * A Vega-Lite chart that fits its container and is redrawn when the container's width changes.
 * The container tells its state in `data-state` (`loading`, `ready`, `error`), which the
 * browser tests wait for before they look at the marks.
 */
export function VegaChart({ spec, label }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) =>
      setWidth(Math.floor(entry.contentRect.width / widthStep(entry.contentRect.width)) * widthStep(entry.contentRect.width)),
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const element = container.current;
    if (!spec || !element || !width) return;
    let finalize: (() => void) | undefined;
    let cancelled = false;
    setState('loading');
    import('./embed.ts')
      .then(({ drawChart }) => drawChart(element, fitWidth(spec, width)))
      .then(
        (result) => {
          if (cancelled) return result.finalize();
          finalize = () => result.finalize();
          setState('ready');
        },
        (err: unknown) => {
          if (cancelled) return;
          setError(err);
          setState('error');
        },
      );
    return () => {
      cancelled = true;
      finalize?.();
    };
  }, [spec, width]);

  return (
    <figure className="chart" aria-label={label} data-state={spec ? state : 'loading'}>
      {(!spec || state === 'loading') && <Loading what="Drawing the chart" />}
      {state === 'error' && <ErrorNotice error={error} />}
      <div ref={container} className="chart-canvas" />
    </figure>
  );
}
