/**
 * A duration in words as FlexMeasures' status reasons give it (Python humanize's `precisedelta`
 * down to seconds): "1 day and 1 hour", "22 hours", "30 minutes", "1.50 seconds".
 * Durations of a month or more are given in days.
 * @param ms the duration, not negative.
 */
export function precisedelta(ms: number): string {
  const seconds = ms / 1000;
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? '' : 's'}`;
  const parts = [
    ...(days ? [unit(days, 'day')] : []),
    ...(hours ? [unit(hours, 'hour')] : []),
    ...(minutes ? [unit(minutes, 'minute')] : []),
    ...(rest ? [Number.isInteger(rest) ? unit(rest, 'second') : `${rest.toFixed(2)} seconds`] : []),
  ];
  if (!parts.length) return '0 seconds';
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}
