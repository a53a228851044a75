/**
 * The largest party anything takes: a booking, a waitlist entry, a table's or a combination's
 * seats, the business's party limits. The API's schemas and the dashboard's inputs stop at it.
 */
export const PARTY_SIZE_MAX = 50;
