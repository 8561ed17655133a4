import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs: one object per line on stdout.
 * @param level the minimum level.
 * @returns the root logger.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}
