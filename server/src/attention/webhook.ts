/**
 * How long a webhook receiver may take to answer before the post is given up (and tried again
 * later): it holds the outbox's drain meanwhile, so it is short.
 */
const WEBHOOK_TIMEOUT_MS = 3000;

/**
 * Why a text cannot be an account's webhook URL: only http(s), and no user name or password in
 * it, since the URL is shown to every member of the account and written to the log.
 * @returns the problem, or undefined for a usable URL.
 */
export function webhookUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Not a valid URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Only http and https URLs are allowed.';
  if (url.username || url.password) return 'The URL may not contain credentials.';
  return undefined;
}

/**
 * Posts a JSON payload to a webhook. Redirects are not followed: an answer that points elsewhere
 * is a failed delivery, so the server only ever posts to the URL the account stored.
 * @returns the receiver's status.
 * @throws when the receiver cannot be reached, answers a redirect or an error, or is too slow.
 */
export async function postWebhook(url: string, payload: unknown): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(payload),
    redirect: 'manual',
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (res.status >= 300) throw new Error(`webhook answered ${res.status}`);
  return res.status;
}
