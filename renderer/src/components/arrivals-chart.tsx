import { useTranslation } from 'react-i18next';
import { zoneName } from '../event-clock';
import { formatTime } from '../i18n/format';
import { arrivalBars, type EventStats } from '../stats';

const WIDTH = 480;
const HEIGHT = 120;
const TICK_EVERY = 6;

/** Arrivals per five minutes over the last two hours, in plain SVG, on the event's clock. */
export function ArrivalsChart({ stats, timezone }: { stats?: EventStats; timezone: string }) {
  const { t } = useTranslation('door');
  const bars = arrivalBars(stats);
  const clock = (date: Date) => formatTime(date, timezone);
  const peak = Math.max(0, ...bars.map((b) => b.count));
  const max = Math.max(1, peak);
  const slot = WIDTH / bars.length;
  const busiest = bars.reduce((a, b) => (b.count > a.count ? b : a), bars[0]);
  const total = bars.reduce((n, b) => n + b.count, 0);
  const zone = t('clock.timesIn', { zone: zoneName(timezone, bars[bars.length - 1].starts) });
  const label = t('chart.label', { from: clock(bars[0].starts), to: clock(bars[bars.length - 1].starts), count: total }) + (busiest.count ? ` ${t('chart.busiest', { count: busiest.count, time: clock(busiest.starts) })}` : '') + ` ${zone}.`;
  return (
    <figure className="chart">
      <figcaption>
        {t('chart.title')} <span className="max">{peak ? t('chart.peak', { count: peak }) : t('chart.none')}</span>{' '}
        <span className="zone" data-testid="chart-zone">
          {zone}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
        {bars.map((bar, i) => {
          const h = Math.round((bar.count / max) * (HEIGHT - 4));
          return (
            bar.count > 0 && (
              <rect key={bar.starts.getTime()} x={i * slot + 1.5} y={HEIGHT - h} width={slot - 3} height={h} className="bar" data-count={bar.count} data-starts={bar.starts.toISOString()}>
                <title>{`${clock(bar.starts)}: ${bar.count}`}</title>
              </rect>
            )
          );
        })}
      </svg>
      {/* Time labels in HTML (the SVG stretches and would distort text), each placed under the
          left edge of its own bar, so the axis is true whatever the panel's width. */}
      <div className="ticks" aria-hidden="true">
        {bars.map((bar, i) =>
          i % TICK_EVERY === 0 ? (
            <span key={bar.starts.getTime()} style={{ left: `${(i / bars.length) * 100}%` }} data-starts={bar.starts.toISOString()}>
              {clock(bar.starts)}
            </span>
          ) : null,
        )}
      </div>
    </figure>
  );
}
