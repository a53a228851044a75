/**
 * The largest party anything takes: a booking, a waitlist entry, a table's or a combination's
 * seats, the business's party limits. The API's schemas and the dashboard's inputs stop at it.
 */
export const PARTY_SIZE_MAX = 50;

/**
 * The largest party that may book online: the business's own online limit, or, when it sets none,
 * its max_capacity cut to the largest party one of its tables or combinations seats (`seatable`,
 * when known: a venue whose only table seats 4 is not offered parties of 5 to 50). The API, the
 * public business answer and the widget read it here.
 */
export const onlinePartyLimit = (
  business: { max_capacity: number; max_online_party_size?: number | null },
  seatable?: number | null,
): number =>
  business.max_online_party_size ?? Math.min(business.max_capacity, seatable || business.max_capacity);
