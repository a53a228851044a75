import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { FeedRow } from './feeds.queries.ts';

export const PrivateNotes = Type.Boolean({
  description:
    'whether its events also carry the staff’s notes and the guest’s allergies; the guest’s own notes always',
});

export const FeedView = Type.Object(
  {
    id: Uuid,
    resource_id: Nullable(Uuid),
    private_notes: PrivateNotes,
    created_at: Timestamp,
  },
  { $id: 'CalendarFeed' },
);

export const CreatedFeedView = Type.Object(
  {
    id: Uuid,
    resource_id: Nullable(Uuid),
    private_notes: PrivateNotes,
    url: Type.String({
      description:
        'the secret address of the feed, shown only in this answer: whoever has it can read the bookings',
    }),
    created_at: Timestamp,
  },
  { $id: 'CreatedCalendarFeed' },
);

export const toFeedView = (row: FeedRow) => ({
  id: row.id,
  resource_id: row.resource_id,
  private_notes: row.private_notes,
  created_at: row.created_at.toISOString(),
});
