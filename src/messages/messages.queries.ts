import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';
import type { WithheldClass } from '../schema.ts';

export interface MessageRow {
  id: string;
  type: string;
  channel: 'email' | 'sms';
  booking_id: string | null;
  to_address: string;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
  withheld_at: Date | null;
  withheld_class: WithheldClass | null;
  failed_at: Date | null;
}

/** The business's messages, newest first, those of one booking when `bookingId` is given. */
export const listMessages = <T>(
  executor: Executor,
  page: PageRequest,
  bookingId: string | undefined,
  view: (row: MessageRow) => T,
) => {
  let query = executor
    .selectFrom('message_outbox')
    .select([
      'id',
      'type',
      'channel',
      'booking_id',
      'to_address',
      'last_error',
      'created_at',
      'sent_at',
      'withheld_at',
      'withheld_class',
      'failed_at',
    ])
    .$narrowType<{ channel: 'email' | 'sms' }>()
    .where('business_id', '=', page.owner);
  if (bookingId) query = query.where('booking_id', '=', bookingId);
  return keysetPage(
    query,
    {
      name: 'messages',
      keys: sortedBy('created_at', 'timestamptz'),
      direction: 'desc',
    },
    page,
    view,
  );
};
