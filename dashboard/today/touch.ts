/** How long a finger rests on a booking to pick it up: shorter, and scrolling the day would lift blocks. */
export const LONG_PRESS_MS = 450;
