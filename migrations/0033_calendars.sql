-- A secret URL serving a business's (or one resource's) bookings as an iCalendar feed. Only the
-- token's SHA-256 is kept, as for API keys; revoking a feed deletes its row.
CREATE TABLE calendar_feeds (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  resource_id uuid,
  token_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, resource_id) REFERENCES resources (business_id, id)
);
-- Looked up by token before the business is known (docs/scaling.md, queries across businesses).
CREATE INDEX calendar_feeds_token_idx ON calendar_feeds (token_hash);
CREATE INDEX calendar_feeds_business_idx ON calendar_feeds (business_id, created_at, id);

-- An external calendar whose busy events become blocks of one resource.
CREATE TABLE calendar_imports (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  resource_id uuid NOT NULL,
  url text NOT NULL,
  etag text,
  -- When the feed was last read whole: an ETag older than a day is not sent, so the window of
  -- expanded recurrences moves on even while the feed does not change.
  parsed_at timestamptz,
  last_synced_at timestamptz,
  last_error text,
  next_sync_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, resource_id) REFERENCES resources (business_id, id)
);
CREATE INDEX calendar_imports_business_idx ON calendar_imports (business_id, created_at, id);
CREATE INDEX calendar_imports_due_idx ON calendar_imports (next_sync_at);

COMMENT ON COLUMN calendar_imports.last_error IS 'The class of the last failure (timeout, dns_error, tls_error, http_<status>, parse_error, too_large), never the peer''s words.';

-- A block an import made: its event's UID and recurrence instant (`import_key`), so a sync
-- updates it in place and removes it when the event is gone upstream.
ALTER TABLE resource_blocks
  ADD COLUMN import_id uuid,
  ADD COLUMN import_key text,
  ADD CONSTRAINT resource_blocks_import_fkey FOREIGN KEY (business_id, import_id)
    REFERENCES calendar_imports (business_id, id) ON DELETE CASCADE,
  ADD CONSTRAINT resource_blocks_import_keyed CHECK ((import_id IS NULL) = (import_key IS NULL));
CREATE UNIQUE INDEX resource_blocks_import_key_idx ON resource_blocks (business_id, import_id, import_key)
  WHERE import_id IS NOT NULL;
