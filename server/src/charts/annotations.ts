import type { NamedAnnotation } from '../store/annotations.ts';

/** One annotation as a chart draws it (FlexMeasures 1.0's `chart_annotations` record). */
export interface ChartAnnotation {
  /** The annotation's place among those found, as 1.0's frame index keeps it. */
  index: number;
  /** Epoch milliseconds, as pandas writes times into JSON. */
  start: number;
  end: number;
  belief_time: number;
  source: string;
  type: string;
  /** Lines of at most 60 characters; the contents of every annotation ending at the same time. */
  content: string[];
}

const LINE = 60;

/** Wraps text on whitespace into lines of at most 60 characters, breaking longer words, as Python's `textwrap.wrap`. */
export function wrapLines(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(/\s+/).filter((w) => w !== '')) {
    while (word.length > 0) {
      const room = line ? LINE - line.length - 1 : LINE;
      if (word.length <= room) {
        line = line ? `${line} ${word}` : word;
        word = '';
      } else if (line) {
        lines.push(line);
        line = '';
      } else {
        lines.push(word.slice(0, LINE));
        word = word.slice(LINE);
      }
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * 1.0's chart preparation: annotations clipped to the window (when asked), their text wrapped,
 * and those ending at the same time stacked into the earliest one (by start, then belief time),
 * by end time.
 */
export function chartAnnotations(found: NamedAnnotation[], window: { startMs?: number; endMs?: number; clip: boolean }): ChartAnnotation[] {
  const rows = found.map((a, index) => ({
    index,
    start: window.clip && window.startMs !== undefined ? Math.max(a.startMs, window.startMs) : a.startMs,
    end: window.clip && window.endMs !== undefined ? Math.min(a.endMs, window.endMs) : a.endMs,
    belief_time: a.beliefTimeMs,
    source: a.sourceName,
    type: a.type,
    content: wrapLines(a.content),
  }));
  const byEnd = new Map<number, ChartAnnotation[]>();
  for (const r of rows) byEnd.set(r.end, [...(byEnd.get(r.end) ?? []), r]);
  return [...byEnd.keys()]
    .sort((a, b) => a - b)
    .map((end) => {
      const group = byEnd.get(end)!.sort((a, b) => a.start - b.start || a.belief_time - b.belief_time);
      return { ...group[0], content: group.flatMap((r) => r.content) };
    });
}
