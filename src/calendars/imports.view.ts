import { Type } from 'typebox';
import { urlShownTo } from '../platform/access.ts';
import type { Principal } from '../platform/auth.ts';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { ImportRow } from './imports.queries.ts';

export const ImportView = Type.Object(
  {
    id: Uuid,
    url: Type.String({
      description:
        'whole for owners and admin keys; for other callers only its origin (it often holds a secret)',
    }),
    resource_id: Uuid,
    last_synced_at: Nullable(Timestamp),
    last_error: Nullable(
      Type.String({
        description:
          'the class of the last failure, null after a sync that worked: `timeout`, `dns_error`, `tls_error`, `connection_error`, `url_not_allowed`, `http_<status>`, `parse_error`, `too_large` or `too_complex` (past the parsing budget)',
      }),
    ),
    created_at: Timestamp,
  },
  { $id: 'CalendarImport' },
);

export const toImportView = (row: ImportRow) => ({
  id: row.id,
  url: row.url,
  resource_id: row.resource_id,
  last_synced_at: row.last_synced_at?.toISOString() ?? null,
  last_error: row.last_error,
  created_at: row.created_at.toISOString(),
});

/** The import as `viewer` may see it (`urlShownTo`). */
export const importShownTo = (viewer: Pick<Principal, 'scopes'>, row: ImportRow) => {
  const view = toImportView(row);
  return { ...view, url: urlShownTo(viewer, view.url) };
};
