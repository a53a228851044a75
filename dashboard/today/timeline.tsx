import { formatMinutes } from '../../src/availability/engine/time.ts';
import { t } from '../i18n.ts';
import { bookingDetails, depositDue, guestName, STATUS_ICON } from './booking-text.ts';
import type { BookingItem, DayPlan, Item } from './day-plan.ts';
import { selectedBooking } from './selection.ts';

const QUARTER = 15;

interface TimelineProps {
  plan: DayPlan;
  /** Minutes from the day's midnight now, when the day shown is today. */
  now: number | null;
  onSelect: (item: BookingItem) => void;
}

/**
 * The day as a grid: a row per table, grouped by section, across the drawn span in 15-minute
 * steps (the track's background draws the steps). Bookings and blocks are placed by their minutes,
 * as fractions of the span.
 */
export function Timeline({ plan, now, onSelect }: TimelineProps) {
  const length = plan.end - plan.start;
  const at = (minutes: number) => `${((minutes - plan.start) / length) * 100}%`;
  const place = (item: Item) => ({
    left: at(item.start),
    width: `${((item.end - item.start) / length) * 100}%`,
  });
  const hours: number[] = [];
  for (let hour = plan.start; hour < plan.end; hour += 60) hours.push(hour);
  const selectedId = selectedBooking.value?.booking.id;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways is scrolled by keyboard once focused
    <section class="timeline" tabIndex={0} aria-label={t('timeline')}>
      <div class="tl" style={{ '--quarters': length / QUARTER, '--hours': length / 60 }}>
        <div class="tl-row tl-scale">
          <span class="tl-label">{t('table')}</span>
          <div class="tl-track">
            {hours.map((hour) => (
              <span key={hour} class="tl-hour" style={{ left: at(hour) }} data-minute={hour}>
                {formatMinutes(hour)}
              </span>
            ))}
          </div>
        </div>
        {plan.periods.length > 0 && (
          <div class="tl-row tl-periods">
            <span class="tl-label" />
            <div class="tl-track">
              {plan.periods.map((period) => (
                <span key={period.name} class="tl-period" style={place(period)}>
                  {period.name} {formatMinutes(period.start)}–{formatMinutes(period.end)}
                </span>
              ))}
            </div>
          </div>
        )}
        {plan.sections.map((section) => (
          <div key={section.name ?? ''} class="tl-section">
            <h2 class="tl-section-name">{section.name ?? t('tables')}</h2>
            <ul>
              {section.rows.map((row) => (
                <li key={row.id} class="tl-row" data-resource={row.name}>
                  <span class="tl-label">
                    {row.name}{' '}
                    <small>
                      {row.capacityMin}–{row.capacityMax}
                    </small>
                  </span>
                  <div class="tl-track tl-grid">
                    {row.blocks.map((block) => (
                      <span
                        key={`${block.start}-${block.end}`}
                        class={block.imported ? 'tl-block imported' : 'tl-block'}
                        style={place(block)}
                      >
                        <span>
                          {block.imported ? t('imported') : t('blocked')}
                          {block.reason && ':'}
                        </span>
                        {block.reason && <span>{block.reason}</span>}
                      </span>
                    ))}
                    {row.bookings.map((item) => (
                      <button
                        key={item.booking.id}
                        type="button"
                        class={`bk st-${item.booking.status}`}
                        style={place(item)}
                        data-start={formatMinutes(item.start)}
                        data-end={formatMinutes(item.end)}
                        aria-pressed={item.booking.id === selectedId}
                        aria-label={`${item.booking.capacity} ${guestName(item.booking)}, ${bookingDetails(item)}`}
                        onClick={() => onSelect(item)}
                      >
                        <span class="bk-icon" aria-hidden="true">
                          {STATUS_ICON[item.booking.status]}
                        </span>
                        <span class="bk-party">{item.booking.capacity}</span>{' '}
                        <span class="bk-name">{(item.booking.guest ?? item.booking.customer).last_name}</span>
                        {depositDue(item.booking) && (
                          <span class="bk-deposit" aria-hidden="true">
                            €
                          </span>
                        )}
                      </button>
                    ))}
                  </div>
                </li>
              ))}
            </ul>
          </div>
        ))}
        {now !== null && now >= plan.start && now <= plan.end && (
          <div class="tl-now" style={{ '--at': (now - plan.start) / length }}>
            <span class="sr-only">{t('now', { time: formatMinutes(now) })}</span>
          </div>
        )}
      </div>
    </section>
  );
}
