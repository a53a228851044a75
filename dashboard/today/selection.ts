/**
 * The booking selected on the Today screen (a click on its block or its line), and where its
 * panel is drawn. The panel is `booking-panel.tsx`: the place for what staff do with a booking.
 */
import { signal } from '@preact/signals';
import type { Booking } from './day-plan.ts';

export interface Selected {
  booking: Booking;
  /** The names of every table it holds (several for a combination). */
  tables: string[];
}

export const selectedBooking = signal<Selected | null>(null);

/** Gives the focus back to a booking (its first block, or its line in the list) once its panel closes. */
export function focusBooking(bookingId: string): void {
  requestAnimationFrame(() =>
    document.querySelector<HTMLElement>(`[data-booking="${CSS.escape(bookingId)}"]`)?.focus(),
  );
}
