-- The name and email given with a booking or waitlist entry, kept on the entry itself. A call that
-- may not change a returning customer's record (one without a trusted credential) still shows who
-- signed up; the customer, matched by phone, keeps the name and email it had.
ALTER TABLE bookings
  ADD COLUMN guest_first_name text,
  ADD COLUMN guest_last_name text,
  ADD COLUMN guest_email text;

ALTER TABLE waitlist_entries
  ADD COLUMN guest_first_name text,
  ADD COLUMN guest_last_name text,
  ADD COLUMN guest_email text;
