import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { Nullable, Timestamp } from '../platform/schemas.ts';
import { STORED_PLAN_IDS, SUBSCRIPTION_STATUSES } from '../schema.ts';
import { subscriptionOfBusiness } from './subscription.service.ts';

const Subscription = Type.Object({
  subscription_status: Type.Enum(SUBSCRIPTION_STATUSES),
  subscription_plan_id: Type.Enum(STORED_PLAN_IDS, {
    description: '`trial` during the trial (premium features), else the plan in force',
  }),
  trial_ends_at: Timestamp,
  trial_days_remaining: Type.Integer({ format: 'int32', description: '0 once the trial is over' }),
  current_period_ends_at: Nullable(Timestamp),
  resource_count: Type.Integer({ format: 'int32', description: "this business's resources, active or not" }),
  deposits_enabled: Type.Boolean({ description: 'true once the connected payment account is onboarded' }),
  is_sandbox: Type.Boolean(),
  bookings_this_month: Type.Integer({
    format: 'int32',
    description: "bookings created this calendar month (UTC) across the developer's live businesses",
  }),
  bookings_quota: Nullable(
    Type.Integer({
      format: 'int32',
      description: "the plan's monthly bookings; null for a sandbox business",
    }),
  ),
  features: Type.Object({
    dynamic_mode: Type.Boolean(),
    authorization_holds: Type.Boolean(),
    calendar_sync: Type.Boolean(),
  }),
});

export const subscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Billing'] });

  routes.route('GET', '/v1/manage/subscription', {
    onRequest: requireBusiness({ scope: 'read', allowPastDue: true }),
    operationId: 'getSubscription',
    summary: "The developer's plan, trial and monthly booking quota, seen from this business",
    description: 'Answers even while the subscription is past due, when every other call answers 402.',
    response: { 200: Subscription },
    handler: async (request) =>
      subscriptionOfBusiness(
        app.db,
        principalOf(request).businessId,
        app.clock.now(),
        app.payments.live?.name ?? null,
      ),
  });
};
