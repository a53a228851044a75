import { useEffect, useRef, useState } from 'preact/hooks';
import { formatMinutes } from '../../src/engine/time.ts';
import { call } from '../api.ts';
import { dataChanged } from '../changes.ts';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { STATUS_ICON } from '../status-text.ts';
import { venueMinutes } from '../venue.ts';
import { bookingDetails, depositDue, guestMarks, guestName, shortGuestName } from './booking-text.ts';
import type { Booking, BookingItem, DayPlan, Item } from './day-plan.ts';
import { selectedBooking } from './selection.ts';
import { LONG_PRESS_MS } from './touch.ts';

const QUARTER = 15;
const DAY = 1440;
/** How far a pointer goes before a press becomes a drag (a click stays a click). */
const DRAG_PX = 5;

/** A block being dragged: where it came from, how far it went, the row under the pointer. */
interface Drag {
  item: BookingItem;
  fromRow: string;
  pointerId: number;
  x: number;
  y: number;
  /** Pixels of the track per minute. */
  scale: number;
  moved: boolean;
  quarters: number;
  dy: number;
  toRow: string;
  /** The change is with the API: the block stays where it was dropped until the answer. */
  sent: boolean;
  /** Picked up by a finger held still: the page does not scroll while it is carried. */
  byTouch: boolean;
}

/** A finger resting on a booking, not yet long enough to pick it up. */
interface Press {
  pointerId: number;
  x: number;
  y: number;
  timer: number;
}

/** The table row under a point of the page, by its resource id. */
function rowAt(x: number, y: number): string | null {
  const row = document
    .elementsFromPoint(x, y)
    .find((element) => element instanceof HTMLElement && element.dataset.resourceId);
  return (row as HTMLElement | undefined)?.dataset.resourceId ?? null;
}

/**
 * Dragging a block to another row or time (pointer events, snapped to 15 minutes) and the change
 * it asks of the API on drop. A refusal puts the block back and says why. A finger scrolls the day
 * as before; held still on a block for a moment it picks the block up and carries it, and lifted
 * without moving it opens the booking's move picker (`onHeld`). The keyboard's way to the same
 * change is that picker.
 */
function useDragToMove(length: number, onHeld: (item: BookingItem) => void) {
  const [drag, setDrag] = useState<Drag | null>(null);
  const current = useRef<Drag | null>(null);
  const pressing = useRef<Press | null>(null);
  const dropped = useRef(false);
  const update = (next: Drag | null) => {
    current.current = next;
    setDrag(next);
  };
  const cancelPress = () => {
    if (pressing.current) window.clearTimeout(pressing.current.timer);
    pressing.current = null;
  };
  // A carried block keeps the page still: a touch's move would otherwise scroll it and end the drag.
  useEffect(() => {
    const holdStill = (event: TouchEvent) => {
      if (current.current?.byTouch) event.preventDefault();
    };
    document.addEventListener('touchmove', holdStill, { passive: false });
    return () => {
      document.removeEventListener('touchmove', holdStill);
      cancelPress();
    };
  }, []);
  const lift = (
    block: HTMLElement,
    at: { pointerId: number; clientX: number; clientY: number },
    item: BookingItem,
    fromRow: string,
    byTouch: boolean,
  ) => {
    if (!block.isConnected) return;
    block.setPointerCapture(at.pointerId);
    update({
      item,
      fromRow,
      pointerId: at.pointerId,
      x: at.clientX,
      y: at.clientY,
      scale: block.parentElement!.getBoundingClientRect().width / length,
      moved: false,
      quarters: 0,
      dy: 0,
      toRow: fromRow,
      sent: false,
      byTouch,
    });
  };
  const start = (event: PointerEvent, item: BookingItem, fromRow: string) => {
    if (event.button !== 0 || current.current?.sent) return;
    const block = event.currentTarget as HTMLElement;
    if (event.pointerType !== 'touch') {
      lift(block, event, item, fromRow, false);
      return;
    }
    cancelPress();
    const at = { pointerId: event.pointerId, clientX: event.clientX, clientY: event.clientY };
    pressing.current = {
      pointerId: at.pointerId,
      x: at.clientX,
      y: at.clientY,
      timer: window.setTimeout(() => {
        pressing.current = null;
        lift(block, at, item, fromRow, true);
      }, LONG_PRESS_MS),
    };
  };
  const move = (event: PointerEvent) => {
    const press = pressing.current;
    if (press && event.pointerId === press.pointerId) {
      // The finger moved on before the block was picked up: it is scrolling.
      if (Math.hypot(event.clientX - press.x, event.clientY - press.y) >= DRAG_PX) cancelPress();
      return;
    }
    const now = current.current;
    if (!now || now.sent || event.pointerId !== now.pointerId) return;
    const dx = event.clientX - now.x;
    const dy = event.clientY - now.y;
    if (!now.moved && Math.hypot(dx, dy) < DRAG_PX) return;
    update({
      ...now,
      moved: true,
      quarters: Math.round(dx / now.scale / QUARTER),
      dy,
      toRow: rowAt(event.clientX, event.clientY) ?? now.toRow,
    });
  };
  const end = (event: PointerEvent) => {
    if (pressing.current?.pointerId === event.pointerId) cancelPress();
    const now = current.current;
    if (!now || now.sent || event.pointerId !== now.pointerId) return;
    if (!now.moved || event.type === 'pointercancel') {
      update(null);
      if (now.byTouch && !now.moved && event.type === 'pointerup') {
        dropped.current = true;
        onHeld(now.item);
      }
      return;
    }
    dropped.current = true;
    const body: { start_time?: string; resource_id?: string } = {};
    if (now.quarters !== 0)
      body.start_time = formatMinutes((((now.item.start + now.quarters * QUARTER) % DAY) + DAY) % DAY);
    if (now.toRow !== now.fromRow) body.resource_id = now.toRow;
    if (!Object.keys(body).length) {
      update(null);
      return;
    }
    update({ ...now, sent: true });
    call((api) =>
      api.PATCH('/v1/manage/bookings/{booking_id}', {
        params: { path: { booking_id: now.item.booking.id } },
        body,
      }),
    )
      .then(
        () => dataChanged(),
        (error) => {
          // Back in place in the same render as the reason, never a moment after it.
          update(null);
          report(error);
        },
      )
      .finally(() => update(null));
  };
  /** A press that became a drag is no click: the panel does not open on drop. */
  const wasDragged = () => {
    const was = dropped.current;
    dropped.current = false;
    return was;
  };
  /** A finger resting on a block, or carrying it, is not asking for the page's menu. */
  const holding = () => pressing.current !== null || current.current?.byTouch === true;
  return { drag, start, move, end, wasDragged, holding };
}

/** The booking's panel, its move picker focused: what a block held still under a finger opens. */
function openMovePicker(onSelect: (item: BookingItem) => void) {
  return (item: BookingItem) => {
    onSelect(item);
    // After the panel has taken the focus for its heading.
    window.setTimeout(() => document.getElementById('panel-move-table')?.focus(), 50);
  };
}

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
  const { drag, start, move, end, wasDragged, holding } = useDragToMove(length, openMovePicker(onSelect));
  const offset = (item: BookingItem, rowId: string) =>
    drag?.moved && drag.item.booking.id === item.booking.id && drag.fromRow === rowId
      ? { transform: `translate(${drag.quarters * QUARTER * drag.scale}px, ${drag.dy}px)` }
      : {};
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways is scrolled by keyboard once focused
    <section class="timeline" tabIndex={0} aria-label={t('timeline')}>
      <div class="tl" style={{ '--quarters': length / QUARTER, '--hours': length / 60 }}>
        <div class="tl-row tl-scale">
          <span class="tl-label">{t('table')}</span>
          <div class="tl-track">
            {hours.map((hour) => (
              <span key={hour} class="tl-hour" style={{ left: at(hour) }} data-minute={hour}>
                {venueMinutes(hour)}
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
                  {period.name} {venueMinutes(period.start)}–{venueMinutes(period.end)}
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
                <li key={row.id} class="tl-row" data-resource={row.name} data-resource-id={row.id}>
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
                    {row.bookings.map((item) =>
                      item.classmates.length > 0 ? (
                        <ClassBlock
                          key={item.booking.id}
                          item={item}
                          place={place(item)}
                          selected={item.booking.id === selectedId}
                          onSelect={onSelect}
                        />
                      ) : (
                        <button
                          key={item.booking.id}
                          type="button"
                          class={`bk st-${item.booking.status}${(drag?.moved || drag?.byTouch) && drag.item.booking.id === item.booking.id ? ' dragged' : ''}`}
                          style={{ ...place(item), ...offset(item, row.id) }}
                          data-start={formatMinutes(item.start)}
                          data-end={formatMinutes(item.end)}
                          data-booking={item.booking.id}
                          aria-pressed={item.booking.id === selectedId}
                          onClick={() => !wasDragged() && onSelect(item)}
                          onPointerDown={(event) => start(event, item, row.id)}
                          onPointerMove={move}
                          onPointerUp={end}
                          onPointerCancel={end}
                          onContextMenu={(event) => holding() && event.preventDefault()}
                        >
                          <span class="bk-icon" aria-hidden="true">
                            {STATUS_ICON[item.booking.status]}
                          </span>
                          <span class="bk-party">{item.booking.capacity}</span>{' '}
                          <span class="bk-name">{shortGuestName(item.booking)}</span>
                          {depositDue(item.booking) && (
                            <span class="bk-deposit" aria-hidden="true">
                              €
                            </span>
                          )}
                          <GuestMarks booking={item.booking} />
                          {/* Named by what it shows first, then what its few words leave out. */}
                          <span class="sr-only">
                            , {guestName(item.booking)}, {bookingDetails(item)}
                          </span>
                        </button>
                      ),
                    )}
                  </div>
                </li>
              ))}
            </ul>
          </div>
        ))}
        {now !== null && now >= plan.start && now <= plan.end && (
          <div class="tl-now" style={{ '--at': (now - plan.start) / length }}>
            <span class="sr-only">{t('now', { time: venueMinutes(now) })}</span>
          </div>
        )}
      </div>
    </section>
  );
}

/**
 * A class on its room: its bookings' guests and how many bookings, as one block (they share the
 * room and the time). It opens the first booking; every booking of it is in the day's list. A
 * class is not dragged: a move changes one participant, which its booking's panel does.
 */
function ClassBlock({
  item,
  place,
  selected,
  onSelect,
}: {
  item: BookingItem;
  place: { left: string; width: string };
  selected: boolean;
  onSelect: (item: BookingItem) => void;
}) {
  const bookings = [item.booking, ...item.classmates];
  const guests = bookings.reduce((sum, booking) => sum + booking.capacity, 0);
  const text = t('classBlock', { n: bookings.length, guests, seats: item.seats ?? guests });
  return (
    <button
      type="button"
      class="bk bk-class"
      style={place}
      data-start={formatMinutes(item.start)}
      data-booking={item.booking.id}
      aria-pressed={selected}
      onClick={() => onSelect(item)}
    >
      <span class="bk-party">{guests}</span> <span class="bk-name">{text}</span>
      <span class="sr-only">, {bookings.map(guestName).join(', ')}</span>
    </button>
  );
}

/** A block's allergy mark (the legend names it; its name says it in words) and the guest's tags, in its first line. */
function GuestMarks({ booking }: { booking: Booking }) {
  const { allergies, tags } = guestMarks(booking);
  return (
    <>
      {allergies && (
        <span class="bk-allergy" aria-hidden="true">
          ⚠
        </span>
      )}
      {tags.length > 0 && <span class="bk-tags">{tags.join(' · ')}</span>}
    </>
  );
}
