/**
 * The schedule picker's choices and the cron expressions they stand for: the API stores cron
 * (five fields, in the site's zone); people mostly want "daily at 06:00".
 */

export type Repeat = 'daily' | 'hourly' | 'weekdays' | 'cron';

export interface RunTimes {
  repeat: Repeat;
  /** `HH:MM`, for daily and weekdays. */
  time: string;
  /** 0–59, for hourly. */
  minute: string;
  /** The expression itself, for the advanced choice. */
  cron: string;
}

export const repeatLabels: Record<Repeat, string> = {
  daily: 'Every day at',
  hourly: 'Every hour at minute',
  weekdays: 'Weekdays (Mon–Fri) at',
  cron: 'Advanced (cron expression)',
};

/** Leading zeros off, as cron writes numbers ("06" is 6); `undefined` for what is not a number. */
const num = (text: string, max: number) => (/^\d{1,2}$/.test(text) && Number(text) <= max ? String(Number(text)) : undefined);

/** @returns the cron expression a pick stands for; an unreadable time or minute is passed on as written, for the API to refuse. */
export function cronOf(pick: RunTimes): string {
  const [h = '', m = ''] = pick.time.split(':');
  const hour = num(h, 23) ?? h;
  const minute = num(m, 59) ?? m;
  if (pick.repeat === 'daily') return `${minute} ${hour} * * *`;
  if (pick.repeat === 'weekdays') return `${minute} ${hour} * * 1-5`;
  if (pick.repeat === 'hourly') return `${num(pick.minute, 59) ?? pick.minute} * * * *`;
  return pick.cron;
}

const pad = (n: string) => n.padStart(2, '0');

/** @returns a stored cron expression in words when the picker could have written it, else undefined. */
export function describeCron(cron: string): string | undefined {
  const daily = /^(\d{1,2}) (\d{1,2}) \* \* (\*|1-5)$/.exec(cron.trim());
  if (daily) return `${daily[3] === '*' ? 'Daily' : 'Weekdays'} at ${pad(daily[2])}:${pad(daily[1])}`;
  const hourly = /^(\d{1,2}) \* \* \* \*$/.exec(cron.trim());
  if (hourly) return `Hourly at :${pad(hourly[1])}`;
  return undefined;
}
