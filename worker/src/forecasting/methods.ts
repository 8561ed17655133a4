import { Matrix, solve } from 'ml-matrix';
import type { StepCalendar } from './calendar.ts';

/**
 * Everything a method may look at, on one grid of steps: the history (NaN where nothing was
 * measured) up to the forecast origin, and, for the whole grid including the forecast window,
 * the calendar, regressor values and the clear-sky shape.
 */
export interface SeriesContext {
  readonly stepMs: number;
  /** Measured values; index i is step i of the grid. Only indices before an origin are used from it. */
  readonly values: Float64Array;
  readonly calendar: StepCalendar;
  /** Regressor sensors' values on the grid (history and forecast window); NaN where unknown. */
  readonly regressors: readonly Float64Array[];
  /** sin(solar altitude) at each step's midpoint, clipped at 0; null without a site location. */
  readonly clearSky: Float64Array | null;
}

/** Forecasts `steps` values from `origin` (the first step not known) on, using only values before it. */
export type Predictor = (origin: number, steps: number) => Float64Array;

/** A forecasting method: fitted on the steps before `trainEnd`, it predicts from any origin at or after it. */
export interface Method {
  readonly name: MethodName;
  fit(ctx: SeriesContext, trainEnd: number): Predictor;
}

export type MethodName = 'seasonal-naive-day' | 'seasonal-naive-week' | 'regression' | 'clear-sky' | 'blend';

/** How much history a regression is fitted on: recent enough to follow the seasons, long enough to see weeks. */
export const TRAINING_DAYS = 84;

const DAY_MS = 86_400_000;

/**
 * The last known value one period (or a whole number of periods) before step t, as seen from the
 * origin: never a value at or after the origin. NaN when none of the last four such values exists.
 */
function seasonalLag(values: Float64Array, t: number, origin: number, period: number): number {
  let k = Math.max(1, Math.ceil((t - origin + 1) / period));
  for (let tries = 0; tries < 4; tries++, k++) {
    const i = t - k * period;
    if (i < 0) return Number.NaN;
    if (!Number.isNaN(values[i])) return values[i];
  }
  return Number.NaN;
}

function seasonalNaive(name: MethodName, days: number): Method {
  return {
    name,
    fit(ctx) {
      const period = Math.round((days * DAY_MS) / ctx.stepMs);
      return (origin, steps) => {
        const out = new Float64Array(steps);
        for (let h = 0; h < steps; h++) out[h] = seasonalLag(ctx.values, origin + h, origin, period);
        return out;
      };
    },
  };
}

/** What a linear model looks at besides the lagged values. */
interface LinearFeatures {
  /** Time of day (quarter hours at most), day type and the daily shape of weekends, as one-hot columns. */
  calendar: boolean;
  /** The value a day before (as seen from the origin: two days before for the second day ahead). */
  dayLag: boolean;
  /** The value a week before. */
  weekLag: boolean;
  /**
   * The clear-sky shape times the clearness of the last 24 hours before the origin (what they
   * produced over what a clear sky would have given), which carries the weather over without the
   * noise of single steps.
   */
  clearness: boolean;
  regressors: boolean;
  clearSky: boolean;
}

/**
 * A linear model fitted by least squares on the last `TRAINING_DAYS`. One model per day of
 * horizon (direct strategy): the model for the second day ahead sees the value two days before,
 * as the forecast will. The one-hot features leave most of each row zero, so the normal
 * equations are accumulated over the non-zero entries only.
 */
const linearMethod = (name: MethodName, use: LinearFeatures): Method => ({
  name,
  fit(ctx, trainEnd) {
    const day = Math.round(DAY_MS / ctx.stepMs);
    const rows = featureRows(ctx, use, day);
    const first = Math.max(7 * day, trainEnd - Math.round((TRAINING_DAYS * DAY_MS) / ctx.stepMs));
    const means = denseMeans(rows, first, trainEnd);
    const models = new Map<number, Float64Array | null>();

    return (origin, steps) => {
      const out = new Float64Array(steps);
      for (let h = 0; h < steps; h++) {
        const band = Math.floor(h / day);
        if (!models.has(band)) models.set(band, fitBand(rows, ctx.values, { first, trainEnd, lead: band * day }));
        const coef = models.get(band);
        if (!coef) {
          out[h] = Number.NaN;
          continue;
        }
        const n = rows.features(origin + h, origin, means);
        let y = 0;
        for (let a = 0; a < n; a++) y += coef[rows.idx[a]] * rows.val[a];
        out[h] = y;
      }
      return out;
    };
  },
});

/** The feature rows of a linear model: their width, and the step's row as sparse (idx, val) pairs. */
interface FeatureRows {
  /** The number of columns. */
  readonly p: number;
  readonly idx: Int32Array;
  readonly val: Float64Array;
  /** The dense part of the row last filled (lags, regressors, clear sky). */
  readonly dense: Float64Array;
  /** Fills `dense` for step t as seen from the origin. */
  denseAt(t: number, origin: number): void;
  /** Fills idx/val with the non-zero features of step t; returns their count, or -1 when one is unknown and `means` is null. */
  features(t: number, origin: number, means: Float64Array | null): number;
}

function featureRows(ctx: SeriesContext, use: LinearFeatures, day: number): FeatureRows {
  const week = 7 * day;
  const bucketMinutes = Math.max(15, ctx.stepMs / 60_000);
  const buckets = use.calendar ? Math.ceil(1440 / bucketMinutes) : 0;
  const regressors = use.regressors ? ctx.regressors : [];
  const clearSky = use.clearSky ? ctx.clearSky : null;
  const clearnessOn = use.clearness && ctx.clearSky !== null;
  const lags = (use.dayLag ? 1 : 0) + (use.weekLag ? 1 : 0) + (clearnessOn ? 1 : 0);
  const extra = regressors.length + (clearSky ? 1 : 0);
  const clearnessAt = clearnessOn ? clearnessBefore(ctx.values, ctx.clearSky!, day) : null;
  // Columns: time-of-day buckets, 6 day types (Monday is the base), weekend buckets, the lags, extras.
  const DAYTYPE = buckets - 1;
  const WEEKEND = buckets + 6;
  const DENSE = use.calendar ? 2 * buckets + 6 : 0;
  const idx = new Int32Array(3 + lags + extra);
  const val = new Float64Array(3 + lags + extra);
  const dense = new Float64Array(lags + extra);

  const denseAt = (t: number, origin: number) => {
    // The lags in a fixed order: day, week, clearness (the last one takes the next free column).
    let j = 0;
    if (use.dayLag) dense[j++] = seasonalLag(ctx.values, t, origin, day);
    if (use.weekLag) dense[j++] = seasonalLag(ctx.values, t, origin, week);
    if (clearnessAt) dense[j] = ctx.clearSky![t] * clearnessAt(origin);
    for (let j = 0; j < regressors.length; j++) dense[lags + j] = regressors[j][t];
    if (clearSky) dense[dense.length - 1] = clearSky[t];
  };

  const features = (t: number, origin: number, means: Float64Array | null): number => {
    let n = 0;
    if (use.calendar) {
      const bucket = Math.floor(ctx.calendar.minuteOfDay[t] / bucketMinutes);
      const dayType = ctx.calendar.dayType[t];
      idx[n] = bucket;
      val[n++] = 1;
      if (dayType > 0) {
        idx[n] = DAYTYPE + dayType;
        val[n++] = 1;
      }
      if (dayType >= 5) {
        idx[n] = WEEKEND + bucket;
        val[n++] = 1;
      }
    }
    denseAt(t, origin);
    for (let j = 0; j < dense.length; j++) {
      let v = dense[j];
      if (Number.isNaN(v)) {
        if (!means) return -1;
        v = means[j];
      }
      idx[n] = DENSE + j;
      val[n++] = v;
    }
    return n;
  };
  return { p: DENSE + lags + extra, idx, val, dense, denseAt, features };
}

/** Means of the dense features over the training steps, which stand in for unknown ones when predicting. */
function denseMeans(rows: FeatureRows, first: number, trainEnd: number): Float64Array {
  const { dense } = rows;
  const means = new Float64Array(dense.length);
  const counts = new Float64Array(dense.length);
  for (let t = first; t < trainEnd; t++) {
    rows.denseAt(t, t);
    for (let j = 0; j < dense.length; j++) {
      if (Number.isNaN(dense[j])) continue;
      means[j] += dense[j];
      counts[j]++;
    }
  }
  for (let j = 0; j < means.length; j++) means[j] = counts[j] ? means[j] / counts[j] : 0;
  return means;
}

/**
 * The model for forecasts `lead` steps ahead (whole days): each training step seen from `lead`
 * steps before it, by least squares over the non-zero entries of the normal equations. A row's
 * columns come in increasing order, so only the upper triangle of XᵀX is summed and then
 * mirrored: each cell gets the same products in the same order as the lower one would.
 * @returns the coefficients, or null with no more rows than columns.
 */
function fitBand(rows: FeatureRows, values: Float64Array, at: { first: number; trainEnd: number; lead: number }): Float64Array | null {
  const { p, idx, val } = rows;
  const xtx = new Float64Array(p * p);
  const xty = new Float64Array(p);
  let n = 0;
  for (let t = at.first; t < at.trainEnd; t++) {
    const y = values[t];
    if (Number.isNaN(y)) continue;
    const k = rows.features(t, t - at.lead, null);
    if (k < 0) continue;
    n++;
    for (let a = 0; a < k; a++) {
      xty[idx[a]] += val[a] * y;
      const row = idx[a] * p;
      for (let b = a; b < k; b++) xtx[row + idx[b]] += val[a] * val[b];
    }
  }
  for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) xtx[j * p + i] = xtx[i * p + j];
  return n > p ? solveNormal(xtx, xty, p) : null;
}

/**
 * @returns the clearness of the `window` steps before an origin: their production over the
 * clear-sky shape's (NaN when nothing was measured or the sun was down), from prefix sums.
 */
function clearnessBefore(values: Float64Array, shape: Float64Array, window: number): (origin: number) => number {
  const produced = new Float64Array(values.length + 1);
  const clear = new Float64Array(values.length + 1);
  for (let i = 0; i < values.length; i++) {
    const measured = !Number.isNaN(values[i]);
    produced[i + 1] = produced[i] + (measured ? values[i] : 0);
    clear[i + 1] = clear[i] + (measured ? shape[i] : 0);
  }
  return (origin) => {
    const from = Math.max(0, origin - window);
    const sun = clear[origin] - clear[from];
    return sun > 0 ? (produced[origin] - produced[from]) / sun : Number.NaN;
  };
}

/**
 * Solves (XᵀX + λI) β = Xᵀy. The small ridge term keeps columns that never occur (no holidays in
 * the window, say) from making the system singular without moving the others measurably.
 */
function solveNormal(xtx: Float64Array, xty: Float64Array, p: number): Float64Array {
  let trace = 0;
  for (let i = 0; i < p; i++) trace += xtx[i * p + i];
  const lambda = (1e-8 * trace) / p + 1e-12;
  const a = new Float64Array(p * p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) a[i * p + j] = xtx[i * p + j] + (i === j ? lambda : 0);
  const beta = choleskySolve(a, xty, p);
  if (beta) return beta;
  const m = new Matrix(p, p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) m.set(i, j, a[i * p + j]);
  // Not positive definite in floating point (columns nearly collinear despite the ridge term): the least-squares solution by SVD.
  return Float64Array.from(solve(m, Matrix.columnVector(Array.from(xty)), true).getColumn(0));
}

/**
 * Solves a β = b for a symmetric a (p × p, row-major) by Cholesky, or returns null when a is not
 * positive definite. The same operations in the same order as ml-matrix's CholeskyDecomposition
 * and its solve, so the coefficients are bit for bit what it gives, on flat arrays instead of its
 * per-element method calls (which made the solve most of a forecast's time).
 */
function choleskySolve(a: Float64Array, b: Float64Array, p: number): Float64Array | null {
  const l = choleskyFactor(a, p);
  if (!l) return null;
  const x = Float64Array.from(b);
  for (let k = 0; k < p; k++) {
    for (let i = 0; i < k; i++) x[k] = x[k] - x[i] * l[k * p + i];
    x[k] = x[k] / l[k * p + k];
  }
  for (let k = p - 1; k >= 0; k--) {
    for (let i = k + 1; i < p; i++) x[k] = x[k] - x[i] * l[i * p + k];
    x[k] = x[k] / l[k * p + k];
  }
  return x;
}

/**
 * The lower Cholesky factor of a (row-major), or null when a is not positive definite. Each entry
 * is ml-matrix's sum of l[k][i]·l[j][i] over i < k, taken only over the i where row j or row k
 * (the one with fewer) is non-zero: the terms left out are exactly ±0, and adding ±0 to a sum that
 * starts at +0 and is never −0 changes nothing, so the factor is the same bit for bit. The one-hot
 * time-of-day and weekend columns leave most rows of the factor sparse, so most products are skipped.
 */
function choleskyFactor(a: Float64Array, p: number): Float64Array | null {
  const l = new Float64Array(p * p);
  // Per row, the columns of its non-zero entries left of the diagonal, in increasing order.
  const nonZero = new Int32Array(p * p);
  const nonZeros = new Int32Array(p);
  for (let j = 0; j < p; j++) {
    let d = 0;
    for (let k = 0; k < j; k++) {
      const row = nonZeros[j] <= nonZeros[k] ? j : k;
      let s = 0;
      for (let m = 0; m < nonZeros[row]; m++) {
        const i = nonZero[row * p + m];
        s += l[k * p + i] * l[j * p + i];
      }
      s = (a[j * p + k] - s) / l[k * p + k];
      l[j * p + k] = s;
      if (s !== 0) nonZero[j * p + nonZeros[j]++] = k;
      d = d + s * s;
    }
    d = a[j * p + j] - d;
    if (!(d > 0)) return null;
    l[j * p + j] = Math.sqrt(d);
  }
  return l;
}

/**
 * The median of other methods' forecasts, step by step (of those that say something there; the
 * mean of the middle two when their number is even). Under absolute error the median of forecasts
 * whose errors are far from perfectly correlated does better than most of them, and it follows
 * whichever two agree: on real household load and PV it beat every single method out of sample
 * (docs/forecasting.md).
 */
function medianOf(name: MethodName, parts: Method[]): Method {
  return {
    name,
    fit(ctx, trainEnd) {
      const predictors = parts.map((m) => m.fit(ctx, trainEnd));
      return (origin, steps) => {
        const forecasts = predictors.map((p) => p(origin, steps));
        const out = new Float64Array(steps);
        const at: number[] = [];
        for (let h = 0; h < steps; h++) {
          at.length = 0;
          for (const f of forecasts) if (!Number.isNaN(f[h])) at.push(f[h]);
          at.sort((a, b) => a - b);
          const mid = at.length >> 1;
          out[h] = at.length === 0 ? Number.NaN : at.length % 2 ? at[mid] : (at[mid - 1] + at[mid]) / 2;
        }
        return out;
      };
    },
  };
}

/** The method, fitted once per series and training end however many others build on it (the blend). */
function fittedOnce(method: Method): Method {
  let last: { ctx: SeriesContext; trainEnd: number; predictor: Predictor } | null = null;
  return {
    name: method.name,
    fit(ctx, trainEnd) {
      if (last?.ctx !== ctx || last.trainEnd !== trainEnd) last = { ctx, trainEnd, predictor: method.fit(ctx, trainEnd) };
      return last.predictor;
    },
  };
}

/** The methods that apply to a series: the clear-sky shape only where the site has a location. */
export function candidateMethods(ctx: SeriesContext): Method[] {
  const naiveDay = seasonalNaive('seasonal-naive-day', 1);
  const naiveWeek = seasonalNaive('seasonal-naive-week', 7);
  const regression = fittedOnce(
    linearMethod('regression', {
      calendar: true,
      dayLag: true,
      weekLag: true,
      clearness: false,
      regressors: true,
      clearSky: true,
    }),
  );
  const methods = [naiveDay, naiveWeek, regression, medianOf('blend', [regression, naiveDay, naiveWeek])];
  // PV: the clear-sky shape, scaled by what the day before made of it, and by what is usual.
  if (ctx.clearSky)
    methods.push(
      linearMethod('clear-sky', { calendar: false, dayLag: false, weekLag: false, clearness: true, regressors: false, clearSky: true }),
    );
  return methods;
}
