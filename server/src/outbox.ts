import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.ts';

/**
 * "Sends" an e-mail. The appliance usually has no mail server and may be offline, so mails are
 * appended to `outbox.jsonl` in the data folder and logged, for an operator to pass on.
 */
export async function sendMail(
  services: { config: Pick<Config, 'dataDir'>; log: Logger },
  mail: { to: string; subject: string; body: string },
): Promise<void> {
  const line = JSON.stringify({ at: new Date().toISOString(), ...mail });
  await fs.appendFile(path.join(services.config.dataDir, 'outbox.jsonl'), line + '\n');
  services.log.info({ mail: { to: mail.to, subject: mail.subject } }, 'mail written to outbox.jsonl');
}
