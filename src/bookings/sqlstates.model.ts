import { classFullMessage, type PacingRefusal, pacingMessage } from '../engine/index.ts';
import { AppError, invalidField } from '../platform/errors.ts';

/**
 * The project's own SQLSTATEs: each code the functions of db/functions/ raise (`ERRCODE = 'SW...'`),
 * what it means and how the API answers it. TypeScript matches a raised code only through these
 * names; sqlstates.test.ts checks that they and the codes in db/ are the same.
 */
export const SQLSTATE = {
  /**
   * A statement's JSON parameter lacks a key it requires (`slotwise_require`, statements.model.ts): the
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
  /** The resource a change places the booking on is no longer active: 422 naming `resource_id`. */
  RESOURCE_INACTIVE: 'SWB11',
  /**
   * The start's pacing is full for the party (`slotwise_check_pacing`; DETAIL: the start, the cap
   * passed and what the start holds): 409 `slot_unavailable` naming the pacing.
   */
  PACING_FULL: 'SWB12',
  /**
   * The class has too few seats left for the party (`slotwise_take_seats`; DETAIL: the start, the
   * seats, the seats left and the party): 409 `slot_unavailable` naming the seats left.
   */
  CLASS_FULL: 'SWB13',
  /** Near the monthly booking quota: raised and caught inside `slotwise_count_booking`, never answered. */
  QUOTA_NEAR: 'SWQ01',
  /** The developer's monthly booking quota is used up (DETAIL: plan, limit): 402 `plan_limit_reached`. */
  QUOTA_REACHED: 'SWQ02',
  /** A sandbox business's monthly cap is used up (DETAIL: cap): 402 `plan_limit_reached`. */
  SANDBOX_CAP_REACHED: 'SWQ03',
} as const;

type SqlState = (typeof SQLSTATE)[keyof typeof SQLSTATE];

/** An error the database raised: its code, its message and its DETAIL (JSON, when the code carries one). */
interface Raised {
  code?: unknown;
  message: string;
  detail?: string;
}

/** The API's answer to each refusal a statement raises, from what the raise carries. */
const ANSWERS: Partial<Record<SqlState, (raised: Raised, detail: Record<string, unknown>) => AppError>> = {
  [SQLSTATE.SLOT_TAKEN]: () => new AppError('slot_unavailable', 'no resource is free for this slot any more'),
  [SQLSTATE.STATUS_REFUSED]: (raised) => new AppError('conflict', raised.message),
  [SQLSTATE.RESOURCE_INACTIVE]: () =>
    invalidField('resource_id', 'is not an active resource of this business'),
  [SQLSTATE.PACING_FULL]: (_, detail) => {
    const { booking_date, start_time, cap, max, covers, bookings, party } = detail as {
      booking_date: string;
      start_time: string;
      cap: PacingRefusal['cap'];
      max: number;
      covers: number;
      bookings: number;
      party: number;
    };
    const refusal: PacingRefusal = { cap, max, load: { covers, bookings } };
    return new AppError(
      'slot_unavailable',
      pacingMessage(refusal, `${start_time} on ${booking_date}`, party),
    );
  },
  [SQLSTATE.CLASS_FULL]: (_, detail) => {
    const { booking_date, start_time, seats_left, party } = detail as {
      booking_date: string;
      start_time: string;
      seats_left: number;
      party: number;
    };
    return new AppError(
      'slot_unavailable',
      classFullMessage(`${start_time} on ${booking_date}`, seats_left, party),
    );
  },
  [SQLSTATE.QUOTA_REACHED]: (_, { plan, limit }) =>
    new AppError(
      'plan_limit_reached',
      `the ${plan} plan takes ${limit} bookings a month and they are used up; upgrade the plan to take more`,
    ),
  [SQLSTATE.SANDBOX_CAP_REACHED]: (_, { cap }) =>
    new AppError(
      'plan_limit_reached',
      `a sandbox business takes ${cap} bookings a month and they are used up; it is for trying things out, a live business takes real bookings`,
    ),
};

/**
 * The one translation of a refusal a statement raised into the API's answer: the AppError of its
 * SQLSTATE, or `error` itself when it is no refusal. Use as `throw refusalOf(error)`.
 */
export function refusalOf(error: unknown): unknown {
  const raised = error as Raised;
  const answer = ANSWERS[raised?.code as SqlState];
  if (!answer) return error;
  return answer(raised, raised.detail ? JSON.parse(raised.detail) : {});
}
