-- An email address is stored trimmed, and a blank one as none (entry-customer.ts `storedEmail`), so
-- "the guest's address, else the customer's" is a plain coalesce wherever it is read. Addresses
-- written before are brought to that form.
UPDATE bookings SET guest_email = nullif(btrim(guest_email), '') WHERE guest_email <> btrim(guest_email) OR btrim(guest_email) = '';
UPDATE waitlist_entries SET guest_email = nullif(btrim(guest_email), '') WHERE guest_email <> btrim(guest_email) OR btrim(guest_email) = '';
UPDATE customers SET email = nullif(btrim(email), '') WHERE email <> btrim(email) OR btrim(email) = '';
