-- How the venue's clock reads to its guests and staff: '24h' or '12h'; null: its language's
-- (12-hour for English, 24-hour for the others), as src/engine/clock.ts decides.
ALTER TABLE businesses
  ADD COLUMN time_format text CHECK (time_format IN ('24h', '12h'));
