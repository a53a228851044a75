import type { Executor } from '../platform/db.ts';

export type BookingMode = 'scheduled' | 'dynamic';
export type DepositType = 'none' | 'charge' | 'authorization_hold';

/** A business's booking rules: the columns of `businesses` from `timezone` to `deposit_type`. */
export interface BusinessSettings {
  timezone: string;
  default_slot_interval_minutes: number;
  default_slot_duration_minutes: number;
  booking_window_days: number;
  min_notice_hours: number;
  min_capacity: number;
  max_capacity: number;
  auto_confirm_bookings: boolean;
  default_deposit_amount_cents: number;
  booking_mode: BookingMode;
  buffer_minutes: number;
  deposit_type: DepositType;
}

export const SETTINGS_COLUMNS = [
  'timezone',
  'default_slot_interval_minutes',
  'default_slot_duration_minutes',
  'booking_window_days',
  'min_notice_hours',
  'min_capacity',
  'max_capacity',
  'auto_confirm_bookings',
  'default_deposit_amount_cents',
  'booking_mode',
  'buffer_minutes',
  'deposit_type',
] as const;

/** The settings of a business, or undefined when no such business exists. */
export async function loadSettings(
  executor: Executor,
  businessId: string,
  options: { forUpdate?: boolean } = {},
): Promise<BusinessSettings | undefined> {
  let query = executor.selectFrom('businesses').select(SETTINGS_COLUMNS).where('id', '=', businessId);
  if (options.forUpdate) query = query.forUpdate();
  return (await query.executeTakeFirst()) as BusinessSettings | undefined;
}
