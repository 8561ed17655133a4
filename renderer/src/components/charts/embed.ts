import embed, { type Result, type VisualizationSpec } from 'vega-embed';
import { expressionInterpreter } from 'vega-interpreter';

/**
 * Draws a Vega-Lite spec as SVG (crisp at any zoom, and its marks carry aria labels) with
 * tooltips. Kept in its own module so that Vega loads only when a chart is shown. Expressions
 * run in Vega's interpreter instead of compiled code, which the UI's Content-Security-Policy
 * (no eval) would block.
 * @param element the container.
 * @param spec the Vega-Lite spec, data included.
 * @returns the embed result; call `finalize()` when the chart goes away.
 */
export function drawChart(element: HTMLElement, spec: Record<string, unknown>): Promise<Result> {
  return embed(element, spec as VisualizationSpec, {
    renderer: 'svg',
    ast: true,
    expr: expressionInterpreter,
    actions: { export: true, source: false, compiled: false, editor: false },
    tooltip: { theme: 'light' },
    config: {
      font: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif',
      axis: { labelFontSize: 11, titleFontSize: 12 },
      legend: { labelFontSize: 11, titleFontSize: 12, orient: 'bottom' },
    },
  });
}
