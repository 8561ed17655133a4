/** Room for the y axis, its title and the chart's padding, which Vega adds outside a plot's width. */
const AXIS_ROOM_PX = 44;

/**
 * Vega-Lite sizes concatenated plots of `width: "container"` to the full container, so their
 * axes stick out of it; this gives each such plot a pixel width that leaves room for them.
 * Other specs are returned as they are (single and layered views fit their container).
 * @param spec the Vega-Lite spec.
 * @param containerPx the width of the element the chart is drawn in.
 * @returns the spec to draw.
 */
export function fitWidth(spec: Record<string, unknown>, containerPx: number): Record<string, unknown> {
  const rows = spec.vconcat;
  if (!Array.isArray(rows)) return spec;
  const width = Math.max(160, containerPx - AXIS_ROOM_PX);
  return {
    ...spec,
    vconcat: rows.map((row: Record<string, unknown>) => (row.width === 'container' ? { ...row, width } : row)),
  };
}
