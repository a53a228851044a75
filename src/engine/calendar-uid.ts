/**
 * A booking's iCalendar UID, the same in every invite emailed about it and in every feed that
 * lists it, so a calendar updates one entry instead of adding another. `host` is the service's
 * public host name (`PUBLIC_BASE_URL`).
 */
export const bookingUid = (bookingId: string, host: string): string => `booking-${bookingId}@${host}`;
