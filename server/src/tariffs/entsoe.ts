import { DOMParser } from '@xmldom/xmldom';
import { instantMs, parseIsoDuration } from '../domain/time.ts';

/** How long the platform may take to answer. */
const TIMEOUT_MS = 30_000;

/** Day-ahead prices of one interval length, in the document's currency per MWh. */
export interface DayAheadPrices {
  currency: string;
  resolutionMs: number;
  /** Interval starts (ms) with their price, ascending. */
  prices: { startMs: number; value: number }[];
}

const childText = (el: Element, name: string): string | undefined => {
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === name) return (n.textContent ?? '').trim();
  }
  return undefined;
};
const children = (el: Element, name: string): Element[] => {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1 && (n as Element).localName === name) out.push(n as Element);
  return out;
};

/**
 * Reads a day-ahead prices document (A44, `Publication_MarketDocument`): per `TimeSeries`, the
 * `Period`s with their interval, resolution and numbered `Point`s. Points the document leaves out
 * repeat the price before them (curve type A03 omits unchanged prices). Where time series
 * overlap, the first one's price stands.
 * @throws the platform's reason for an `Acknowledgement_MarketDocument` (no data, bad token), or
 *   what is wrong with the document.
 */
export function parseDayAhead(xml: string): DayAheadPrices {
  const problems: string[] = [];
  const doc = new DOMParser({
    errorHandler: { warning: () => {}, error: (m) => problems.push(m), fatalError: (m) => problems.push(m) },
  }).parseFromString(xml, 'text/xml');
  const root = doc.documentElement;
  if (problems.length || !root) throw new Error(`not an XML document: ${problems[0] ?? 'empty'}`);
  if (root.localName === 'Acknowledgement_MarketDocument') {
    const reason = children(root, 'Reason')[0];
    throw new Error(`the platform answered: ${(reason && childText(reason, 'text')) ?? 'no data'}`);
  }
  if (root.localName !== 'Publication_MarketDocument') throw new Error(`unexpected document ${root.localName}`);
  const byStart = new Map<number, number>();
  let currency: string | undefined;
  let resolutionMs: number | undefined;
  for (const series of children(root, 'TimeSeries')) {
    const cur = childText(series, 'currency_Unit.name');
    const per = childText(series, 'price_Measure_Unit.name');
    if (!cur || per !== 'MWH') throw new Error(`prices in ${cur ?? '?'}/${per ?? '?'} are not per MWh`);
    if (currency && cur !== currency) throw new Error(`prices in both ${currency} and ${cur}`);
    currency = cur;
    for (const period of children(series, 'Period')) {
      const interval = children(period, 'timeInterval')[0];
      const [startMs, endMs] = [instantMs(childText(interval, 'start') ?? '') ?? NaN, instantMs(childText(interval, 'end') ?? '') ?? NaN];
      const resolution = parseIsoDuration(childText(period, 'resolution') ?? '');
      if (!interval || !Number.isFinite(startMs) || !Number.isFinite(endMs) || typeof resolution === 'string' || resolution.ms <= 0) {
        throw new Error('a period without a readable interval or resolution');
      }
      const stepMs = resolution.ms;
      if (resolutionMs && stepMs !== resolutionMs) throw new Error('periods of different resolutions');
      resolutionMs = stepMs;
      const given = new Map<number, number>();
      for (const point of children(period, 'Point')) {
        const position = Number(childText(point, 'position'));
        const value = Number(childText(point, 'price.amount'));
        if (!Number.isInteger(position) || position < 1 || !Number.isFinite(value)) throw new Error('a point without position or price');
        given.set(position, value);
      }
      let last: number | undefined;
      for (let position = 1; startMs + (position - 1) * stepMs < endMs; position++) {
        last = given.get(position) ?? last;
        const at = startMs + (position - 1) * stepMs;
        if (last !== undefined && !byStart.has(at)) byStart.set(at, last);
      }
    }
  }
  if (!currency || !resolutionMs) throw new Error('no prices in the document');
  const prices = [...byStart.entries()].sort(([a], [b]) => a - b).map(([startMs, value]) => ({ startMs, value }));
  return { currency, resolutionMs, prices };
}

/** The platform's time format: yyyyMMddHHmm in UTC. */
const platformTime = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, '');

/**
 * Asks the platform for the day-ahead prices of a bidding zone. The base URL and token are the
 * operator's settings; the token is never logged. Redirects are not followed.
 */
export async function fetchDayAhead(
  entsoe: { url: string; token: string },
  zone: string,
  startMs: number,
  endMs: number,
): Promise<DayAheadPrices> {
  const url = new URL(entsoe.url);
  const params = {
    securityToken: entsoe.token,
    documentType: 'A44',
    in_Domain: zone,
    out_Domain: zone,
    periodStart: platformTime(startMs),
    periodEnd: platformTime(endMs),
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await res.text();
  // The platform answers "no data" as an acknowledgement document, with a 200 or a 400.
  if (res.status >= 300 && !text.includes('Acknowledgement_MarketDocument')) throw new Error(`the platform answered ${res.status}`);
  return parseDayAhead(text);
}
