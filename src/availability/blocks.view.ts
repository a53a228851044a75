import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { BlockRow } from './blocks.queries.ts';

export const BlockView = Type.Object({
  id: Uuid,
  resource_id: Uuid,
  start_at: Timestamp,
  end_at: Timestamp,
  reason: Nullable(Type.String()),
  source: Nullable(Type.String()),
  created_at: Timestamp,
});

export const toBlockView = (row: BlockRow) => ({
  ...row,
  start_at: row.start_at.toISOString(),
  end_at: row.end_at.toISOString(),
  created_at: row.created_at.toISOString(),
});
