import { Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/schemas.ts';
import type { AuditLogRow } from './audit.queries.ts';

const State = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

export const AuditEntryView = Type.Object({
  id: Uuid,
  user_email: Type.String(),
  action: Type.String(),
  entity_type: Type.String(),
  entity_id: Type.Union([Type.String(), Type.Null()]),
  before_state: State,
  after_state: State,
  meta: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});

export const toAuditEntryView = (row: AuditLogRow) => ({
  ...row,
  before_state: row.before_state as Record<string, unknown> | null,
  after_state: row.after_state as Record<string, unknown> | null,
  meta: (row.meta ?? {}) as Record<string, unknown>,
  created_at: row.created_at.toISOString(),
});
