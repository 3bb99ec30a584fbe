import { arrivalBars, type EventStats } from '../stats';

const WIDTH = 480;
const HEIGHT = 140;
const AXIS = 18;

function clock(date: Date): string {
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** Arrivals per five minutes over the last two hours, in plain SVG. */
export function ArrivalsChart({ stats }: { stats?: EventStats }) {
  const bars = arrivalBars(stats);
  const max = Math.max(1, ...bars.map((b) => b.count));
  const slot = WIDTH / bars.length;
  const plot = HEIGHT - AXIS;
  const busiest = bars.reduce((a, b) => (b.count > a.count ? b : a), bars[0]);
  const label = `Arrivals per 5 minutes, ${clock(bars[0].starts)} to ${clock(bars[bars.length - 1].starts)}: ${bars.reduce((n, b) => n + b.count, 0)} in total${busiest.count ? `, busiest ${busiest.count} at ${clock(busiest.starts)}` : ''}.`;
  return (
    <figure className="chart">
      <figcaption>
        Arrivals per 5 minutes <span className="muted">(max {max})</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
        <line x1="0" y1={plot + 0.5} x2={WIDTH} y2={plot + 0.5} className="axis" />
        {bars.map((bar, i) => {
          const h = Math.round((bar.count / max) * (plot - 4));
          return (
            <g key={bar.starts.getTime()}>
              {bar.count > 0 && (
                <rect x={i * slot + 1.5} y={plot - h} width={slot - 3} height={h} className="bar" data-count={bar.count}>
                  <title>{`${clock(bar.starts)}: ${bar.count}`}</title>
                </rect>
              )}
              {i % 6 === 0 && (
                <text x={i * slot + 1} y={HEIGHT - 4} className="tick">
                  {clock(bar.starts)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
