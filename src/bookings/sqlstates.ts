/**
 * The project's own SQLSTATEs: each code the functions of db/functions/ raise (`ERRCODE = 'SW...'`),
 * what it means and how the API answers it. TypeScript matches a raised code only through these
 * names; sqlstates.test.ts checks that they and the codes in db/ are the same.
 */
export const SQLSTATE = {
  /**
   * A statement's JSON parameter lacks a key it requires (`slotwise_require`, statements.ts): the
   * two sides of the contract disagree. Never caught: a 500 `internal_error`.
   */
  PARAMETER_INCOMPLETE: 'SWC01',
  /** No candidate resource is free for the booking any more: 409 `slot_unavailable`. */
  SLOT_TAKEN: 'SWB09',
  /**
   * The status machine refused a change's status move, raised after the placement's own refusal
   * had its chance (`p.status_refused`): 409 `conflict` with the machine's message.
   */
  STATUS_REFUSED: 'SWB10',
  /** Near the monthly booking quota: raised and caught inside `slotwise_count_booking`, never answered. */
  QUOTA_NEAR: 'SWQ01',
  /** The developer's monthly booking quota is used up: 402 `plan_limit_reached` (`quotaReached`). */
  QUOTA_REACHED: 'SWQ02',
} as const;

/** Whether `error` is the database raising `code`. */
export const raised = (error: unknown, code: (typeof SQLSTATE)[keyof typeof SQLSTATE]) =>
  (error as { code?: unknown }).code === code;
