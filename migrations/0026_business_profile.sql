-- What a guest sees of the venue, and the largest party that may book online. All optional: a
-- null profile field is one the venue has not given; a null max_online_party_size follows
-- max_capacity. A set limit stays inside the business's own party range, so lowering
-- max_capacity (or raising min_capacity) past it is refused rather than silently changing it.
ALTER TABLE businesses
  ADD COLUMN description text CHECK (char_length(description) <= 2000),
  ADD COLUMN address text CHECK (char_length(address) <= 300),
  ADD COLUMN phone text CHECK (char_length(phone) <= 20),
  ADD COLUMN public_email text CHECK (char_length(public_email) <= 254),
  ADD COLUMN website text CHECK (char_length(website) <= 2000),
  ADD COLUMN logo_url text CHECK (char_length(logo_url) <= 2000),
  ADD COLUMN booking_policy text CHECK (char_length(booking_policy) <= 2000),
  ADD COLUMN max_online_party_size integer
    CONSTRAINT businesses_online_party_in_range
    CHECK (max_online_party_size BETWEEN min_capacity AND max_capacity);

COMMENT ON COLUMN businesses.description IS 'What the venue says about itself to guests.';
COMMENT ON COLUMN businesses.phone IS 'The venue''s phone for guests; quoted when a party is too large to book online.';
COMMENT ON COLUMN businesses.public_email IS 'The venue''s email for guests (not the login of any account).';
COMMENT ON COLUMN businesses.website IS 'An https URL.';
COMMENT ON COLUMN businesses.logo_url IS 'An https URL of the venue''s logo image.';
COMMENT ON COLUMN businesses.booking_policy IS 'Cancellation, deposit and lateness terms in the venue''s words.';
COMMENT ON COLUMN businesses.max_online_party_size IS 'The largest party that may book online (staff are not limited); null follows max_capacity.';
