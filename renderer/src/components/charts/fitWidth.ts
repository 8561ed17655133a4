/** Room for the y axis, its title and the chart's padding, which Vega adds outside a plot's width. */
const AXIS_ROOM_PX = 56;

/** Below this container width (a phone), axes are drawn compact and legends list one entry a line. */
const NARROW_PX = 560;

/** On a phone: smaller axis text close to its axis, titles that fit, and legends below the plot that wrap instead of running off the side. */
const NARROW_CONFIG = {
  axis: { labelFontSize: 10, titleFontSize: 10, titlePadding: 2, labelPadding: 2 },
  legend: { orient: 'bottom', direction: 'vertical', labelLimit: 260 },
  title: { fontSize: 11 },
};

/** An axis drawn outside another on the same side (`offset`) clears that one's compact labels and title with this. */
const NARROW_OFFSET_PX = 40;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The spec with every offset axis moved in to `NARROW_OFFSET_PX`, however deep its layers nest. */
function compactOffsets(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactOffsets);
  if (!isObject(node)) return node;
  const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, compactOffsets(value)]));
  if (isObject(out.axis) && typeof out.axis.offset === 'number') out.axis = { ...out.axis, offset: NARROW_OFFSET_PX };
  return out;
}

/**
 * Vega-Lite sizes concatenated plots of `width: "container"` to the full container, so their
 * axes stick out of it; this gives each such plot a pixel width that leaves room for them.
 * On a narrow container every chart draws its axes compact, so that a plot with three value
 * axes keeps most of a phone's width, and its legend below in lines that fit.
 * @param spec the Vega-Lite spec.
 * @param containerPx the width of the element the chart is drawn in.
 * @returns the spec to draw.
 */
export function fitWidth(spec: Record<string, unknown>, containerPx: number): Record<string, unknown> {
  const narrow = containerPx < NARROW_PX;
  const fitted = narrow
    ? { ...(compactOffsets(spec) as Record<string, unknown>), config: { ...(isObject(spec.config) ? spec.config : {}), ...NARROW_CONFIG } }
    : spec;
  const rows = fitted.vconcat;
  if (!Array.isArray(rows)) return fitted;
  const width = Math.max(160, containerPx - AXIS_ROOM_PX);
  return {
    ...fitted,
    vconcat: rows.map((row: Record<string, unknown>) => (row.width === 'container' ? { ...row, width } : row)),
  };
}
