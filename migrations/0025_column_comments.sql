-- What a column means beyond its name and type, kept in the database, where `\d+` shows it and the
-- generated types (src/db.generated.ts) carry it to the code. No data changes.

COMMENT ON TABLE booking_usage IS 'A developer''s bookings in a month, counted on eight rows (shard); the count is their sum.';
COMMENT ON TABLE sandbox_usage IS 'A sandbox business''s bookings per calendar month (UTC), below its cap.';
COMMENT ON TABLE users IS 'A dashboard user: one email (lower case) and one password, whatever the number of businesses.';
COMMENT ON TABLE billing_cleanups IS 'Work left at the processor about a developer''s billing, done by a job.';

COMMENT ON COLUMN developers.billing_checkout_id IS 'The developer''s open plan checkout at the processor (cs_...); opening another expires it.';
COMMENT ON COLUMN booking_usage.shard IS 'One of the eight rows a month''s count is spread over, so that a developer''s concurrent bookings seldom wait for one another (slotwise_count_booking).';
COMMENT ON COLUMN businesses.public_bookings_per_ip_per_hour IS 'Online bookings a client IP may make per hour with a publishable key.';
COMMENT ON COLUMN users.session_epoch IS 'Raised to end every session of the account; access tokens carry the value they were issued under.';
COMMENT ON COLUMN memberships.status IS 'invited grants nothing until the person accepts the emailed link.';
COMMENT ON COLUMN memberships.invited_at IS 'When the invitation was (last) sent.';
COMMENT ON COLUMN memberships.invite_token_hash IS 'SHA-256 of the pending invitation link''s token; null once accepted.';
COMMENT ON COLUMN login_failures.client_ip IS 'The client address the attempt came from; null for failures recorded before addresses were.';
COMMENT ON COLUMN refresh_tokens.business_id IS 'The business a dashboard user''s session acts on; null for developers.';
COMMENT ON COLUMN refresh_tokens.family_id IS 'Shared by every token descended from one login: a spent one presented again revokes them all.';
COMMENT ON COLUMN api_keys.allowed_origins IS 'Origins (https://shop.example) a publishable key may be used from; empty for secret keys.';
COMMENT ON COLUMN api_keys.is_default IS 'The business''s default publishable key, the one its hosted booking page uses.';
COMMENT ON COLUMN api_keys.public_key IS 'The full key, for publishable keys only (they are no secret); null for secret keys.';
COMMENT ON COLUMN resource_blocks.during IS 'A tstzrange such as [2026-01-01 10:00+00,2026-01-01 11:00+00).';
COMMENT ON COLUMN bookings.guest_first_name IS 'The name given with this booking; null on rows older than migration 0007.';
COMMENT ON COLUMN bookings.guest_last_name IS 'The name given with this booking; null on rows older than migration 0007.';
COMMENT ON COLUMN bookings.guest_email IS 'The email given with this booking; null on rows older than migration 0007.';
COMMENT ON COLUMN waitlist_entries.guest_first_name IS 'The name given with this entry; null on rows older than migration 0007.';
COMMENT ON COLUMN waitlist_entries.guest_last_name IS 'The name given with this entry; null on rows older than migration 0007.';
COMMENT ON COLUMN waitlist_entries.guest_email IS 'The email given with this entry; null on rows older than migration 0007.';
COMMENT ON COLUMN deposits.reversal_due_at IS 'Money arrived for a cancelled booking: when a job refunds it or releases the hold.';
COMMENT ON COLUMN email_outbox.next_attempt_at IS 'When the sender tries it next.';
COMMENT ON COLUMN email_outbox.withheld_at IS 'A sandbox business''s message to an outside address, logged instead of sent.';
COMMENT ON COLUMN webhook_endpoints.secret IS 'Sealed (src/platform/secrets.ts); never stored in plain text.';
