/** The settings a booking widget needs to set itself up, spelled as the settings routes spell them. */
export const WIDGET_SETTINGS = [
  'timezone',
  'booking_mode',
  'min_capacity',
  'max_capacity',
  'booking_window_days',
  'default_slot_interval_minutes',
  'deposit_type',
  'default_deposit_amount_cents',
  'payment_hold_minutes',
  'cancellation_cutoff_hours',
  'guest_change_cutoff_hours',
  'time_format',
] as const;
