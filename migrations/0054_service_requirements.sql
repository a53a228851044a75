-- Services that need several resources at once (docs/api-behaviour.md, "Services that need several
-- resources"): a booking of one holds `count` resources of each group for the same span, every
-- hold under the exclusion constraint of `booking_holds` as a combination's tables are.
ALTER TABLE services ADD COLUMN requirements jsonb NOT NULL DEFAULT '[]'
  CHECK (jsonb_typeof(requirements) = 'array');
COMMENT ON COLUMN services.requirements IS 'The resources a booking of it holds together: [{name, resource_ids, count}], one or more of each group (distinct resources, at most 6 in all); empty for a service that holds one resource.';
