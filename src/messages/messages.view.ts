import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { WITHHELD_CLASSES, type WithheldClass } from '../schema.ts';
import type { MessageRow } from './messages.queries.ts';

/** What a failure is called where the stored error is not one of the senders' classes. */
const UNCLASSED_ERROR = 'send_error';

export const MessageView = Type.Object(
  {
    id: Uuid,
    type: Type.String({
      description:
        '`booking_confirmed`, `booking_rescheduled`, `booking_cancelled`, `booking_reminder`, `waitlist_offer`, `venue_new_booking`, `venue_guest_cancellation`, or `notice` (a payment link)',
    }),
    channel: Type.Union([Type.Literal('email'), Type.Literal('sms')]),
    booking_id: Nullable(Uuid),
    recipient: Type.String({
      description: 'masked: an email as `j***@e***.com`, a phone as its last 3 digits',
    }),
    status: Type.Union(
      [Type.Literal('queued'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('withheld')],
      {
        description:
          '`queued` until sent (also while retrying), `failed` once given up, `withheld` when a rule held it back (never sent, never tried again: `withheld_class` says which)',
      },
    ),
    error: Nullable(
      Type.String({
        description:
          'the class of the last failure (`timeout`, `connection_error`, `http_<status>`, `rejected`, ...); null once sent, and for a withheld message',
      }),
    ),
    withheld_class: Nullable(
      Type.Unsafe<WithheldClass>({
        type: 'string',
        enum: [...WITHHELD_CLASSES],
        description:
          "why a `withheld` message was held back: `sandbox` (a sandbox business's message to someone outside it; a sandbox business sends no SMS at all), `sms_country` (the number is not of a country in `sms_countries`), `sms_number_type` (a premium-rate, shared-cost, personal or unknown-type number), `sms_daily_cap` (3 a day to one number, or `sms_per_day`), `sms_allowance_used` (the plan's SMS of the month); null for any other status",
      }),
    ),
    created_at: Timestamp,
    sent_at: Nullable(Timestamp),
  },
  { $id: 'Message' },
);

export type MessageView = Static<typeof MessageView>;

/** `jane@example.com` -> `j***@e***.com`: enough to tell which address, not to read it. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const name = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${[...local][0] ?? ''}***@${[...name][0] ?? ''}***${tld}`;
}

/** A phone shows its last 3 digits only. */
export function maskPhone(phone: string): string {
  return `***${phone.replace(/\D/g, '').slice(-3)}`;
}

/** An error as stored, shown only when it is a class (`http_500`): never a peer's own words. */
const errorClass = (stored: string | null) =>
  stored === null ? null : /^[a-z][a-z0-9_]{0,40}$/.test(stored) ? stored : UNCLASSED_ERROR;

export function toMessageView(row: MessageRow): MessageView {
  const status = row.sent_at ? 'sent' : row.withheld_at ? 'withheld' : row.failed_at ? 'failed' : 'queued';
  return {
    id: row.id,
    type: row.type,
    channel: row.channel,
    booking_id: row.booking_id,
    recipient: row.channel === 'sms' ? maskPhone(row.to_address) : maskEmail(row.to_address),
    status,
    error: status === 'sent' || status === 'withheld' ? null : errorClass(row.last_error),
    withheld_class: status === 'withheld' ? row.withheld_class : null,
    created_at: row.created_at.toISOString(),
    sent_at: row.sent_at?.toISOString() ?? null,
  };
}
