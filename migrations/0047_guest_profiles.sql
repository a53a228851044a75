-- A guest's profile: what the staff note about them (never shown to the guest), what the guest
-- chose (marketing, language), and the two ends of a guest's record: merged into another profile,
-- or erased on request. Counts (visits, no-shows, covers) are computed from the bookings, never kept.
ALTER TABLE customers
  ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
  ADD COLUMN allergies text,
  ADD COLUMN staff_notes text,
  ADD COLUMN marketing_opt_in boolean NOT NULL DEFAULT false,
  ADD COLUMN preferred_language text,
  ADD COLUMN merged_into uuid,
  ADD COLUMN erased_at timestamptz,
  ADD CONSTRAINT customers_merged_into_fkey FOREIGN KEY (business_id, merged_into)
    REFERENCES customers (business_id, id);
CREATE INDEX customers_tags_idx ON customers USING gin (tags);
COMMENT ON COLUMN customers.tags IS 'Free labels the staff give a guest (vip, regular), at most 20.';
COMMENT ON COLUMN customers.staff_notes IS 'The staff''s notes on the guest: never in a guest''s answer or message.';
COMMENT ON COLUMN customers.marketing_opt_in IS 'Set true only by the guest''s own action (a box on the hosted page or widget).';
COMMENT ON COLUMN customers.merged_into IS
  'The profile this duplicate was merged into: its phone still reaches that one, and it is listed nowhere.';
COMMENT ON COLUMN customers.erased_at IS
  'When the guest''s personal data was erased: name, contact, notes and allergies are gone from every table.';

ALTER TABLE businesses ADD COLUMN guest_data_retention_months integer
  CHECK (guest_data_retention_months BETWEEN 1 AND 120);
COMMENT ON COLUMN businesses.guest_data_retention_months IS
  'Guests with no booking for this many months are erased by a job; null keeps them.';

-- A calendar feed is a secret address read by phones and shared calendars: it carries the staff's
-- notes and the guest's allergies only when the venue made it to (docs/api-behaviour.md,
-- "Calendar feeds and import").
ALTER TABLE calendar_feeds ADD COLUMN private_notes boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN calendar_feeds.private_notes IS
  'Whether the feed''s events carry the staff''s notes and the guest''s allergies; the guest''s own notes always.';
