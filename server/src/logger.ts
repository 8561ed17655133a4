import pino, { type Logger } from 'pino';
import type { LogFile } from './logFile.ts';

/**
 * Structured JSON logs: one object per line on stdout and, when given, in a log file too.
 * @param level the minimum level.
 * @param file a log file that receives the same lines (see openLogFile()).
 * @returns the root logger.
 */
export function createLogger(level: string, file?: LogFile): Logger {
  const options = { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime };
  if (!file) return pino(options);
  const stdout = pino.destination({ dest: 1, sync: true });
  return pino(
    options,
    pino.multistream([
      { level, stream: stdout },
      { level, stream: file },
    ]),
  );
}
