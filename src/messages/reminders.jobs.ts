import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db.ts';
import type { Job } from '../platform/jobs.ts';
import { writeDueReminders } from './reminders.queries.ts';

/** Reminders written per run: a backlog (after downtime) drains over a few runs, oldest start first. */
const BATCH = 500;

/** Writes the guests' reminders into the outbox as they fall due; the senders send them. */
export const reminderJob = (db: Db, clock: Clock): Job => ({
  name: 'reminders',
  everyMs: 60_000,
  run: () => writeDueReminders(db, new Date(clock.now()), BATCH),
});
