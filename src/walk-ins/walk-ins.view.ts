import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { WalkInRow } from './walk-ins.queries.ts';

export const WalkInSchema = Type.Object(
  {
    id: Uuid,
    capacity: Type.Integer({ format: 'int32' }),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    position: Type.Integer({
      format: 'int32',
      minimum: 1,
      description: '1-based, in the order the queue was joined',
    }),
    quoted_wait_minutes: Nullable(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        description:
          'minutes until a table that seats the party frees, the parties ahead of it seated first (0: now); null when none frees today',
      }),
    ),
    notified_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'WalkIn' },
);

export const toWalkInView = (row: WalkInRow, position: number, quotedWaitMinutes: number | null) => ({
  id: row.id,
  capacity: row.capacity,
  first_name: row.first_name,
  last_name: row.last_name,
  phone: row.phone,
  email: row.email,
  notes: row.notes,
  position,
  quoted_wait_minutes: quotedWaitMinutes,
  notified_at: row.notified_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
});
