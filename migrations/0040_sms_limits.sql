-- SMS cost a business's developer and the platform money per message, so they are bounded
-- (docs/api-behaviour.md, "Message settings, reminders, SMS and the messages list"). A null
-- `country` follows the time zone's country, and a null `sms_countries` follows `country`: a
-- business that never chose either keeps the two consistent when its time zone changes.
ALTER TABLE businesses
  ADD COLUMN country text CHECK (country ~ '^[A-Z]{2}$'),
  ADD COLUMN sms_countries text[] CHECK (cardinality(sms_countries) <= 50),
  ADD COLUMN sms_per_day integer NOT NULL DEFAULT 100 CHECK (sms_per_day >= 0);

COMMENT ON COLUMN businesses.country IS 'ISO 3166 alpha-2; null: the time zone''s country. National phone numbers are read in it.';
COMMENT ON COLUMN businesses.sms_countries IS 'The countries whose numbers may be texted; null: the business''s country alone.';
COMMENT ON COLUMN businesses.sms_per_day IS 'SMS sent per day (UTC), further bounded by SMS_MAX_PER_BUSINESS_PER_DAY.';

-- Why a message was held back instead of sent: a sandbox business's message to someone outside it,
-- or an SMS refused by its rules. Every message withheld so far was a sandbox one.
ALTER TABLE message_outbox
  ADD COLUMN withheld_class text CHECK (withheld_class IN (
    'sms_country', 'sms_number_type', 'sms_daily_cap', 'sms_allowance_used', 'sandbox')),
  -- The number an SMS was counted for (E.164): a try after a failure neither counts it again nor
  -- reads the number anew.
  ADD COLUMN sms_to text;
UPDATE message_outbox SET withheld_class = 'sandbox' WHERE withheld_at IS NOT NULL;
ALTER TABLE message_outbox
  ADD CONSTRAINT message_outbox_withheld_has_class CHECK ((withheld_at IS NULL) = (withheld_class IS NULL));

COMMENT ON COLUMN message_outbox.withheld_at IS 'When it was held back instead of sent (withheld_class says why).';

-- SMS counted per period, each counter a row that the sender raises only below its cap in the
-- transaction that lets an SMS go, so concurrent senders in any number of processes wait on the
-- row and never pass the cap: per number a day across the service (`owner` the nil UUID), per
-- business a day (`number` ''), per developer a month (`owner` the developer, `number` '').
CREATE TABLE sms_counts (
  scope text NOT NULL CHECK (scope IN ('number', 'business', 'developer')),
  owner uuid NOT NULL,
  number text NOT NULL,
  period date NOT NULL,
  sent integer NOT NULL,
  PRIMARY KEY (scope, owner, number, period)
);
CREATE INDEX sms_counts_period_idx ON sms_counts (period);
COMMENT ON TABLE sms_counts IS 'SMS let go per number and day, business and day, developer and month (UTC); old periods are deleted by the SMS sender.';
