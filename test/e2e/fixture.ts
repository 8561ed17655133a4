import type { Browser, Page } from 'playwright-core';
import type { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { consoleErrors, launchBrowser } from './browser.ts';

/** What a browser test of one site starts from: the server, its account-admin and site, and a page. */
export interface OpenSite {
  t: TestServer;
  browser: Browser;
  page: Page;
  /** The page's console errors, filled as it runs. */
  errors: string[];
  accountId: number;
  /** The account-admin's API token and e-mail (their password is the factories' PASSWORD). */
  token: string;
  email: string;
  /** The id of the account-admin, whose profile is in the site's zone. */
  userId: number;
  /** The id of the account's site: a building named 'Home' unless asked otherwise. */
  site: number;
  /** The site's time zone, for the sensors a test adds to it. */
  zone: string;
  /** Closes the browser, then the server. */
  close(): Promise<void>;
}

export interface SiteOptions {
  /** Extra server settings (e.g. the embedded MQTT broker). */
  settings?: Record<string, string>;
  /** The server's clock; the real one unless given. */
  clock?: SimulatedClock;
  /** The page's size; 1280 × 800 unless given. */
  viewport?: { width: number; height: number };
  /** The browser's zone; UTC unless given. */
  timezoneId?: string;
  /**
   * The site's zone, Europe/Amsterdam unless given: the account-admin's profile is in it, so that
   * the forms offer it for what they make.
   */
  zone?: string;
  /** The account's name; a made-up one unless given. */
  account?: string;
  /** The site's asset: a building named 'Home' without attributes unless given. */
  site?: { name?: string; type?: string; attributes?: Record<string, unknown> };
}

/**
 * Opens a page in a context of its own (so that pages share no session), with what it logs as
 * errors collected.
 * @param options.viewport the page's size; 1280 × 800 unless given.
 * @param options.timezoneId the browser's zone; UTC unless given.
 * @param options.timeout how long an action may wait; 20 s unless given.
 */
export async function openPage(
  browser: Browser,
  options: Pick<SiteOptions, 'viewport' | 'timezoneId'> & { timeout?: number } = {},
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    timezoneId: options.timezoneId ?? 'UTC',
  });
  const page = await context.newPage();
  page.setDefaultTimeout(options.timeout ?? 20_000);
  return { page, errors: consoleErrors(page) };
}

/**
 * Starts the real server over a fresh store with an account, its account-admin and their site,
 * and a headless Chromium page at a desktop viewport in UTC (so that times read the same
 * on every machine); the page is not signed in yet.
 */
export async function openSite(options: SiteOptions = {}): Promise<OpenSite> {
  const t = await startTestServer(options.settings, undefined, { clock: options.clock });
  let browser: Browser | undefined;
  try {
    const f = factories(t.db);
    const accountId = (await f.account({ name: options.account })).id;
    const zone = options.zone ?? 'Europe/Amsterdam';
    const admin = await f.user({ accountId, roles: ['account-admin'], timezone: zone });
    const site = (await f.asset({ accountId, type: 'building', name: 'Home', ...options.site })).id;
    browser = await launchBrowser();
    const { page, errors } = await openPage(browser, options);
    const opened = browser;
    const close = async () => {
      await opened.close();
      await t.close();
    };
    const { token, user } = admin;
    return {
      t,
      browser: opened,
      page,
      errors,
      accountId,
      token,
      email: user.email,
      userId: user.id,
      site,
      zone,
      close,
    };
  } catch (err) {
    await browser?.close();
    await t.close();
    throw err;
  }
}
