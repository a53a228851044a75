import type { EventHandlers } from '../payments/inbound.ts';

/** The processor's events about deposits: payments, holds, saved cards and payment links. */
export const depositEventHandlers: EventHandlers = {};
