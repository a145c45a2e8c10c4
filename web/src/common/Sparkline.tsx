/**
 * Attempts per hour over the last 24 hours as a small SVG bar chart (Outpost's Sparkline.tsx):
 * each bar is an hour, its height the attempts, the failed part drawn apart. The numbers are in
 * the accessible name, so the chart is not the only way to read them.
 */
export interface HourStat {
  hour: string;
  attempts: number;
  succeeded: number;
}

const WIDTH = 168;
const HEIGHT = 32;

export function Sparkline(props: { hourly: HourStat[] }) {
  const { hourly } = props;
  const peak = Math.max(1, ...hourly.map((h) => h.attempts));
  const total = hourly.reduce((sum, h) => sum + h.attempts, 0);
  const failed = hourly.reduce((sum, h) => sum + (h.attempts - h.succeeded), 0);
  const slot = WIDTH / Math.max(hourly.length, 1);
  const label = `Attempts per hour over the last 24 hours: ${total} in all, ${failed} failed, at most ${total ? peak : 0} in an hour`;
  return (
    <svg className="sparkline" role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width={WIDTH} height={HEIGHT}>
      <title>{label}</title>
      <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className="axis" />
      {hourly.map((h, i) => {
        const x = i * slot + 1;
        const w = Math.max(slot - 2, 1);
        const okHeight = (h.succeeded / peak) * (HEIGHT - 2);
        const badHeight = ((h.attempts - h.succeeded) / peak) * (HEIGHT - 2);
        return (
          <g key={h.hour}>
            {okHeight > 0 ? <rect x={x} y={HEIGHT - 1 - okHeight} width={w} height={okHeight} className="ok" /> : null}
            {badHeight > 0 ? <rect x={x} y={HEIGHT - 1 - okHeight - badHeight} width={w} height={badHeight} className="bad" /> : null}
          </g>
        );
      })}
    </svg>
  );
}
