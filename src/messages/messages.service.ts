import type { Executor } from '../platform/db.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { listMessages } from './messages.queries.ts';
import { toMessageView } from './messages.view.ts';

/** What the business told its guests and itself, and how each message fared. */
export const businessMessages = (executor: Executor, page: PageRequest, bookingId: string | undefined) =>
  listMessages(executor, page, bookingId, toMessageView);
