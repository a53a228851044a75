import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';

/** The longest reminder a business may set (`reminder_hours_before`), which bounds the window read. */
const MAX_REMINDER_HOURS = 168;

/**
 * Writes the reminders due at `now`, at most `limit` of them: one per confirmed booking and
 * channel whose moment (`starts_at` less `reminder_hours_before` hours, an instant, so a clock
 * change between the two moves nothing) has come while the booking has not started, for a
 * booking made before that moment, on each channel that is on, to the guest's contact there
 * (db/functions/slotwise_guest_contact.sql, as for the booking's other messages). A pair
 * already reminded is passed over (the unique reminder index), so a booking is reminded at most
 * once per channel however many runs race, and a booking moved after its reminder is not
 * reminded again. The payload is the booking as the API answers it now. Answers how many it wrote.
 */
export async function writeDueReminders(executor: Executor, now: Date, limit: number): Promise<number> {
  const result = await sql`
    INSERT INTO message_outbox (business_id, type, channel, to_address, booking_id, payload)
    SELECT due.business_id, 'booking_reminder', due.channel, due.to_address, due.id, v.view
    FROM (
      SELECT b.business_id, b.id, b.starts_at, contact.channel, contact.to_address
      FROM bookings b
      JOIN businesses biz ON biz.id = b.business_id
      JOIN customers c ON c.business_id = b.business_id AND c.id = b.customer_id
      CROSS JOIN LATERAL (VALUES
        ('email', CASE WHEN biz.guest_emails_enabled
          THEN slotwise_guest_contact('email', b.guest_email, c.email, c.phone) END),
        ('sms', CASE WHEN biz.sms_enabled THEN slotwise_guest_contact('sms', b.guest_email, c.email, c.phone) END)
      ) AS contact (channel, to_address)
      WHERE b.status = 'confirmed'
        AND b.starts_at > ${now}
        AND b.starts_at <= ${now}::timestamptz + make_interval(hours => ${MAX_REMINDER_HOURS})
        AND biz.reminder_hours_before > 0
        AND b.starts_at - make_interval(hours => biz.reminder_hours_before) <= ${now}
        AND b.created_at < b.starts_at - make_interval(hours => biz.reminder_hours_before)
        AND contact.to_address IS NOT NULL
        AND NOT EXISTS (
          SELECT 1 FROM message_outbox m
          WHERE m.booking_id = b.id AND m.channel = contact.channel AND m.type = 'booking_reminder')
      ORDER BY b.starts_at
      LIMIT ${limit}
    ) AS due
    JOIN booking_views v ON v.business_id = due.business_id AND v.id = due.id
    ON CONFLICT (booking_id, channel) WHERE type = 'booking_reminder' DO NOTHING
  `.execute(executor);
  return Number(result.numAffectedRows ?? 0);
}
