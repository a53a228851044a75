-- Every key of business data leads with `business_id`, so the schema can be distributed by business
-- (Citus: `create_distributed_table(..., 'business_id')`, all colocated) without changing a
-- constraint: a distributed table's primary keys, unique and exclusion constraints must include
-- the distribution column, and a foreign key between two of them must join on it. Which tables are
-- business data, reference or global is written down in docs/scaling.md and checked by
-- src/platform/distribution.test.ts. Ids stay UUIDs, unique in practice; every query of business
-- data names its business.

-- A delivery belongs to the business of its endpoint and event.
ALTER TABLE webhook_deliveries ADD COLUMN business_id uuid REFERENCES businesses (id);
UPDATE webhook_deliveries SET business_id = webhook_endpoints.business_id
  FROM webhook_endpoints
  WHERE webhook_endpoints.id = webhook_deliveries.endpoint_id;
ALTER TABLE webhook_deliveries ALTER COLUMN business_id SET NOT NULL;

-- Foreign keys on a lone id go first: they hang on the primary keys replaced below.
ALTER TABLE bookings
  DROP CONSTRAINT bookings_customer_id_fkey,
  DROP CONSTRAINT bookings_resource_id_fkey,
  DROP CONSTRAINT bookings_service_id_fkey;
ALTER TABLE deposits DROP CONSTRAINT deposits_booking_id_fkey;
ALTER TABLE resource_blocks DROP CONSTRAINT resource_blocks_resource_id_fkey;
ALTER TABLE waitlist_entries
  DROP CONSTRAINT waitlist_entries_customer_id_fkey,
  DROP CONSTRAINT waitlist_entries_service_id_fkey;
ALTER TABLE webhook_deliveries
  DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey,
  DROP CONSTRAINT webhook_deliveries_event_id_fkey;

ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE blackout_dates DROP CONSTRAINT blackout_dates_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE bookings DROP CONSTRAINT bookings_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE customers DROP CONSTRAINT customers_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE deposits DROP CONSTRAINT deposits_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE memberships DROP CONSTRAINT memberships_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE resource_blocks DROP CONSTRAINT resource_blocks_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE resources DROP CONSTRAINT resources_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE services DROP CONSTRAINT services_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_pkey, ADD PRIMARY KEY (business_id, id);
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_pkey, ADD PRIMARY KEY (business_id, id);

-- The same references, within one business. A booking or waitlist entry without a service
-- (service_id null) is not checked, as before (MATCH SIMPLE).
ALTER TABLE bookings
  ADD CONSTRAINT bookings_customer_id_fkey FOREIGN KEY (business_id, customer_id)
    REFERENCES customers (business_id, id),
  ADD CONSTRAINT bookings_resource_id_fkey FOREIGN KEY (business_id, resource_id)
    REFERENCES resources (business_id, id),
  ADD CONSTRAINT bookings_service_id_fkey FOREIGN KEY (business_id, service_id)
    REFERENCES services (business_id, id);
ALTER TABLE deposits
  ADD CONSTRAINT deposits_booking_id_fkey FOREIGN KEY (business_id, booking_id)
    REFERENCES bookings (business_id, id);
ALTER TABLE resource_blocks
  ADD CONSTRAINT resource_blocks_resource_id_fkey FOREIGN KEY (business_id, resource_id)
    REFERENCES resources (business_id, id);
ALTER TABLE waitlist_entries
  ADD CONSTRAINT waitlist_entries_customer_id_fkey FOREIGN KEY (business_id, customer_id)
    REFERENCES customers (business_id, id),
  ADD CONSTRAINT waitlist_entries_service_id_fkey FOREIGN KEY (business_id, service_id)
    REFERENCES services (business_id, id);
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (business_id, endpoint_id)
    REFERENCES webhook_endpoints (business_id, id) ON DELETE CASCADE,
  ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (business_id, event_id)
    REFERENCES webhook_events (business_id, id);

-- Resources are only ever shared within a business; the constraint says so, as a distributed one must.
ALTER TABLE bookings
  DROP CONSTRAINT bookings_no_overlap,
  ADD CONSTRAINT bookings_no_overlap
    EXCLUDE USING gist (business_id WITH =, resource_id WITH =, during WITH &&)
    WHERE (status IN ('pending', 'confirmed', 'checked_in'));

-- The processor's ids are unique per business. An inbound event names no business the service can
-- trust before the row is found, so each id keeps an index of its own for that look-up.
ALTER TABLE deposits
  DROP CONSTRAINT deposits_processor_payment_id_key,
  DROP CONSTRAINT deposits_processor_setup_id_key,
  DROP CONSTRAINT deposits_processor_checkout_id_key,
  ADD CONSTRAINT deposits_processor_payment_id_key UNIQUE (business_id, processor_payment_id),
  ADD CONSTRAINT deposits_processor_setup_id_key UNIQUE (business_id, processor_setup_id),
  ADD CONSTRAINT deposits_processor_checkout_id_key UNIQUE (business_id, processor_checkout_id);
CREATE INDEX deposits_processor_payment_idx ON deposits (processor_payment_id);
CREATE INDEX deposits_processor_setup_idx ON deposits (processor_setup_id);
CREATE INDEX deposits_processor_checkout_idx ON deposits (processor_checkout_id);

ALTER TABLE connected_accounts
  DROP CONSTRAINT connected_accounts_processor_account_id_key,
  ADD CONSTRAINT connected_accounts_processor_account_id_key UNIQUE (business_id, processor_account_id);
CREATE INDEX connected_accounts_processor_account_idx ON connected_accounts (processor_account_id);

-- A business's deliveries are listed and ordered per endpoint; the look-ups now name the business.
DROP INDEX webhook_deliveries_subject_idx;
CREATE INDEX webhook_deliveries_subject_idx ON webhook_deliveries (business_id, endpoint_id, subject_key, seq)
  WHERE status IN ('pending', 'retrying');
DROP INDEX webhook_deliveries_log_idx;
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (business_id, endpoint_id, seq);
DROP INDEX webhook_deliveries_event_idx;
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (business_id, event_id);
DROP INDEX bookings_customer_idx;
CREATE INDEX bookings_customer_idx ON bookings (business_id, customer_id, booking_date DESC);
