-- The statistics of a period count a business's bookings by date, status, party, table and
-- length. With those columns in the date index, a year is read from the index alone (an
-- index-only scan), a few hundred pages kept together by business; read through the heap, it
-- costs a page per booking once other businesses' bookings are written between its own. The
-- key stays as it was (the date lists and the day's bookings walk it in this order), so a
-- booking still writes one entry in it, only wider. Status changes already rewrite the
-- indexes (status is in the partial indexes' conditions).
CREATE INDEX bookings_business_date_cover_idx ON bookings (business_id, booking_date, start_time, id)
  INCLUDE (status, capacity, resource_id, duration_minutes);
DROP INDEX bookings_business_date_idx;
ALTER INDEX bookings_business_date_cover_idx RENAME TO bookings_business_date_idx;

-- An index-only scan skips the heap only on pages the visibility map marks all-visible, which
-- vacuum sets. By default a table is vacuumed after inserts or updates of a fifth of its rows:
-- on a platform's bookings, weeks of new and changed bookings whose pages the statistics would
-- read row by row. A fiftieth keeps those weeks to days; vacuuming pages written since the last
-- pass is cheap.
ALTER TABLE bookings SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.02);
