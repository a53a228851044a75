/** The wire shapes of dynamic mode's lengths, shared by the availability and booking routes. */
import { Type } from 'typebox';

/** A dynamic booking's length when none is asked for. */
export const DURATION_DEFAULT = 60;

export const Duration = Type.Integer({
  format: 'int32',
  minimum: 5,
  maximum: 480,
  default: DURATION_DEFAULT,
  description: 'minutes, 5-480',
});

export const PLAN_AND_MODE =
  'Top plan only (402 `plan_upgrade_required` otherwise; sandbox businesses have it); a business in `scheduled` mode answers 400.';
