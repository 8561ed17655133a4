/**
 * Money as the operator reads it: in the price sensor's currency, as a sentence whose verb
 * carries the sign ("costs € 1.73", "earns € 0.74"), so that no minus sign has to be interpreted.
 */

/** @returns the currency's symbol (`€` for EUR), or the code itself where the browser knows none. */
export function currencySymbol(currency: string | undefined): string {
  if (!currency) return '';
  try {
    const parts = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'narrowSymbol' }).formatToParts(0);
    return parts.find((p) => p.type === 'currency')?.value ?? currency;
  } catch {
    // Not an ISO 4217 code (a sensor unit such as "KRW" typed wrong): show it as written.
    return currency;
  }
}

/** @returns e.g. `€ 1,234.50`, or the bare amount without a currency. */
export function formatMoney(amount: number, currency: string | undefined): string {
  const number = Math.abs(amount).toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const symbol = currencySymbol(currency);
  return symbol ? `${symbol} ${number}` : number;
}

/** @returns `costs € 1.73`, `earns € 0.74`, or `costs nothing`. */
export function moneySentence(amount: number, currency: string | undefined): string {
  if (Math.abs(amount) < 0.005) return 'costs nothing';
  return `${amount > 0 ? 'costs' : 'earns'} ${formatMoney(amount, currency)}`;
}

/**
 * A commitment's cost name in words: the solver names soft-constraint penalties after the
 * constraint, and a missed SoC target is billed as the minimum or maximum it stands for.
 */
export function commitmentLabel(name: string): string {
  const rules: [RegExp, string][] = [
    [/^energy$/, 'Energy'],
    [/^soc minima breach ?/, 'Penalty: SoC below a minimum or target'],
    [/^soc maxima breach ?/, 'Penalty: SoC above a maximum or target'],
    [/^consumption breach ?/, 'Penalty: consumption above capacity'],
    [/^production breach ?/, 'Penalty: production above capacity'],
  ];
  for (const [pattern, words] of rules) {
    const m = pattern.exec(name);
    if (!m) continue;
    const rest = name.slice(m[0].length);
    return rest ? `${words} (${rest})` : words;
  }
  return name;
}

/** @returns whether a commitment's cost is a penalty for breaching a soft constraint. */
export const isPenalty = (name: string) => /breach/.test(name);

/** @returns the currency of a price unit (`EUR` of `EUR/MWh`), or undefined for a unit that is not a price. */
export function currencyOf(unit: string | undefined): string | undefined {
  return /^([A-Z]{3})\/[kMG]?Wh?$/.exec(unit ?? '')?.[1];
}
