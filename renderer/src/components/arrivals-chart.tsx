import { arrivalBars, type EventStats } from '../stats';

const WIDTH = 480;
const HEIGHT = 120;
const TICK_EVERY = 6;

function clock(date: Date): string {
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** Arrivals per five minutes over the last two hours, in plain SVG. */
export function ArrivalsChart({ stats }: { stats?: EventStats }) {
  const bars = arrivalBars(stats);
  const peak = Math.max(0, ...bars.map((b) => b.count));
  const max = Math.max(1, peak);
  const slot = WIDTH / bars.length;
  const plot = HEIGHT;
  const busiest = bars.reduce((a, b) => (b.count > a.count ? b : a), bars[0]);
  const label = `Arrivals per 5 minutes, ${clock(bars[0].starts)} to ${clock(bars[bars.length - 1].starts)}: ${bars.reduce((n, b) => n + b.count, 0)} in total${busiest.count ? `, busiest ${busiest.count} at ${clock(busiest.starts)}` : ''}.`;
  return (
    <figure className="chart">
      <figcaption>
        Arrivals per 5 min <span className="max">{peak ? `peak ${peak}` : 'none yet'}</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
        {bars.map((bar, i) => {
          const h = Math.round((bar.count / max) * (plot - 4));
          return (
            bar.count > 0 && (
              <rect key={bar.starts.getTime()} x={i * slot + 1.5} y={plot - h} width={slot - 3} height={h} className="bar" data-count={bar.count}>
                <title>{`${clock(bar.starts)}: ${bar.count}`}</title>
              </rect>
            )
          );
        })}
      </svg>
      {/* Time labels in HTML: the SVG stretches to the panel and would distort text. */}
      <div className="ticks" aria-hidden="true">
        {bars
          .filter((_, i) => i % TICK_EVERY === 0)
          .map((bar) => (
            <span key={bar.starts.getTime()}>{clock(bar.starts)}</span>
          ))}
      </div>
    </figure>
  );
}
