/**
 * The largest party anything takes: a booking, a waitlist entry, a table's or a combination's
 * seats, the business's party limits. The API's schemas and the dashboard's inputs stop at it.
 */
export const PARTY_SIZE_MAX = 50;

/**
 * The largest party that may book online: the business's own online limit, or its max_capacity
 * when it sets none. The API, the public business answer and the widget read it here.
 */
export const onlinePartyLimit = (business: {
  max_capacity: number;
  max_online_party_size?: number | null;
}): number => business.max_online_party_size ?? business.max_capacity;
