CREATE OR REPLACE TRIGGER customers_search BEFORE INSERT OR UPDATE OF first_name, last_name, phone, email
  ON customers FOR EACH ROW EXECUTE FUNCTION slotwise_customer_search();

-- Customers stored before the keys existed get them here, where the trigger first exists (a
-- migration runs before db/'s definitions): an idempotent fill, a no-op once done.
UPDATE customers SET first_name = first_name WHERE search_text IS NULL;
