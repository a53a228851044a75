import { Type } from 'typebox';
import { urlShownTo } from '../platform/access.ts';
import type { Principal } from '../platform/auth.ts';
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

/** Entities whose states hold a `url` that often carries a secret: shown as `urlShownTo` says. */
const SECRET_URL_ENTITIES = new Set(['webhook_endpoint', 'calendar_import']);

type State = Record<string, unknown> | null;

export const toAuditEntryView = (viewer: Pick<Principal, 'scopes'>, row: AuditLogRow) => {
  const shown = (state: State): State =>
    state && SECRET_URL_ENTITIES.has(row.entity_type) && typeof state.url === 'string'
      ? { ...state, url: urlShownTo(viewer, state.url) }
      : state;
  return {
    ...row,
    before_state: shown(row.before_state as State),
    after_state: shown(row.after_state as State),
    meta: (row.meta ?? {}) as Record<string, unknown>,
    created_at: row.created_at.toISOString(),
  };
};
