import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';

export interface Invite {
  method: 'REQUEST' | 'CANCEL';
  /** The whole VCALENDAR text. */
  content: string;
}

export interface InviteFacts {
  method: 'REQUEST' | 'CANCEL';
  uid: string;
  sequence: number;
  start: Date;
  end: Date;
  /** When this version of the entry was made (DTSTAMP): the booking's last change. */
  stamp: Date;
  summary: string;
  description: string;
  location: string | null;
  organizer: { name: string; email: string };
  attendee: string | null;
}

/**
 * A booking's calendar entry as an email invite: METHOD REQUEST adds or updates it, CANCEL (with
 * STATUS CANCELLED) removes it; the UID names the booking and SEQUENCE orders the versions. Times
 * are written in UTC with no calendar time zone: with a zone and no VTIMEZONE data the library
 * writes the UTC clock under the zone's name.
 */
export function inviteFor(facts: InviteFacts): Invite {
  const calendar = ical({
    prodId: { company: 'Slotwise', product: 'Slotwise' },
    method: facts.method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: facts.uid,
    sequence: facts.sequence,
    start: facts.start,
    end: facts.end,
    stamp: facts.stamp,
    summary: facts.summary,
    description: facts.description,
    location: facts.location,
    organizer: facts.organizer,
    status: facts.method === 'CANCEL' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    attendees: facts.attendee ? [{ email: facts.attendee, rsvp: false }] : [],
  });
  return { method: facts.method, content: calendar.toString() };
}
