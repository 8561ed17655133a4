import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { beforeEach } from 'vitest';

/** Where screenshots go (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));

const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The system Chromium (Debian's `chromium` package; browser downloads are not possible here). */
export const chromiumPath = candidates.find((p): p is string => Boolean(p && fs.existsSync(p)));

/** @returns a headless Chromium. */
export function launchBrowser(): Promise<Browser> {
  if (!chromiumPath) throw new Error('No Chromium found: install it (apt-get install chromium) or set CHROMIUM_PATH.');
  // No sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/**
 * Collects what a page logs as errors (console errors and uncaught exceptions), so that a
 * test can require a clean console.
 * @param page the page to watch.
 * @returns the list, filled as the page runs.
 */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/**
 * Collects what a page logs as warnings (e.g. Vega's), so that a test can require none.
 * @param page the page to watch.
 * @returns the list, filled as the page runs.
 */
export function consoleWarnings(page: Page): string[] {
  const warnings: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'warning') warnings.push(msg.text());
  });
  return warnings;
}

/**
 * Signs in on the sign-in page as a person does; the caller waits for the page it expects next.
 * @param at the sign-in page's URL, with any `next`.
 */
export async function signIn(page: Page, at: string, email: string, password: string): Promise<void> {
  await page.goto(at);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Saves a full-page screenshot as `test/artifacts/<name>.png`.
 * @param page the page.
 * @param name file name without extension.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Saves a screenshot when a test of the file fails, as `test/artifacts/<prefix>-failed-<test>.png`:
 * what the page showed is what a failure report needs.
 * @param page the page, once the file's set-up has opened it.
 */
export function screenshotOnFailure(page: () => Page, prefix: string): void {
  beforeEach(({ onTestFailed, task }) => {
    onTestFailed(() => screenshot(page(), `${prefix}-failed-${task.name.replace(/\W+/g, '-').slice(0, 50)}`));
  });
}

/**
 * The values a Vega chart drew, read from the aria labels of its point marks
 * (`…; Value: 31.5; …`): proof that marks were drawn for the data, not only that a page loaded.
 * @param page the page.
 * @param label the chart figure's aria label.
 * @param field the name the value carries in the labels.
 * @returns the values, in drawing order.
 */
export async function chartValues(page: Page, label: string, field: string): Promise<number[]> {
  const figure = page.locator(`figure[aria-label="${label}"][data-state="ready"]`);
  await figure.waitFor();
  const labels = await figure
    .locator('g.mark-symbol path[aria-label]')
    .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('aria-label') ?? ''));
  // d3-format writes negative numbers with a true minus sign (U+2212).
  const pattern = new RegExp(`${field.replace(/[()]/g, '\\$&')}: ([-\u2212]?[\\d.,]+)`);
  return labels
    .map((l) => pattern.exec(l)?.[1])
    .filter((v): v is string => v !== undefined)
    .map((v) => Number(v.replace(/,/g, '').replace('\u2212', '-')));
}
