import type { Browser, Page } from 'playwright-core';
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
  /** The id of the account's site: a building asset named 'Home'. */
  site: number;
  /** Closes the browser, then the server. */
  close(): Promise<void>;
}

/**
 * Starts the real server over a fresh store with an account, its account-admin and their site
 * 'Home', and a headless Chromium page at a desktop viewport in UTC (so that times read the same
 * on every machine); the page is not signed in yet.
 * @param options.settings extra server settings (e.g. the embedded MQTT broker).
 * @param options.viewport the page's size; 1280 × 800 unless given.
 * @param options.timezoneId the browser's zone; UTC unless given.
 */
export async function openSite(
  options: { settings?: Record<string, string>; viewport?: { width: number; height: number }; timezoneId?: string } = {},
): Promise<OpenSite> {
  const t = await startTestServer(options.settings);
  let browser: Browser | undefined;
  try {
    const f = factories(t.db);
    const accountId = (await f.account()).id;
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
    browser = await launchBrowser();
    const context = await browser.newContext({
      viewport: options.viewport ?? { width: 1280, height: 800 },
      timezoneId: options.timezoneId ?? 'UTC',
    });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const opened = browser;
    const close = async () => {
      await opened.close();
      await t.close();
    };
    return { t, browser: opened, page, errors: consoleErrors(page), accountId, token: admin.token, email: admin.user.email, site, close };
  } catch (err) {
    await browser?.close();
    await t.close();
    throw err;
  }
}
