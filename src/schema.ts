import type { ColumnType, Generated } from 'kysely';
import type * as Tables from './db.generated.ts';
import type { TimeFormat } from './engine/clock.ts';
import type { BookingStatus } from './engine/status.ts';

/**
 * `Table` with `Columns` typed narrower. A column the table does not have, or a type that is not a
 * narrowing of the generated one, fails to compile: a migration renaming or retyping a column
 * shows here.
 */
type Narrowed<Table, Columns extends { [K in keyof Columns]: K extends keyof Table ? Table[K] : never }> = {
  [K in keyof Table]: K extends keyof Columns ? Columns[K] : Table[K];
};

export const SUBSCRIPTION_STATUSES = ['trial', 'active', 'past_due', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
/** What `subscription_plan_id` may hold: a plan, or `trial` while the trial runs. */
export const STORED_PLAN_IDS = ['trial', 'free', 'starter', 'pro', 'premium'] as const;
export type StoredPlanId = (typeof STORED_PLAN_IDS)[number];

/** A developer's subscription as stored. */
export interface SubscriptionState {
  status: SubscriptionStatus;
  planId: StoredPlanId;
  trialEndsAt: Date;
  /** End of the paid period; a cancelled subscription keeps its plan until then. */
  currentPeriodEndsAt: Date | null;
}

type DevelopersTable = Narrowed<
  Tables.Developers,
  {
    subscription_status: Generated<SubscriptionStatus>;
    subscription_plan_id: Generated<StoredPlanId>;
  }
>;

/** How long a party of `min_party` to `max_party` guests holds its table, as `businesses.turn_times` stores it. */
export interface TurnTime {
  min_party: number;
  max_party: number;
  duration_minutes: number;
}

/** The languages a business's messages, pages and texts to guests are written in. */
export const NOTIFICATION_LANGUAGES = ['en', 'de', 'fr', 'nl', 'es'] as const;
export type NotificationLanguage = (typeof NOTIFICATION_LANGUAGES)[number];

/** Why a message was held back instead of sent (docs/api-behaviour.md, "Message settings, reminders, SMS and the messages list"). */
export const WITHHELD_CLASSES = [
  'sms_country',
  'sms_number_type',
  'sms_daily_cap',
  'sms_allowance_used',
  'sandbox',
] as const;
export type WithheldClass = (typeof WITHHELD_CLASSES)[number];

type CustomersTable = Narrowed<Tables.Customers, { preferred_language: NotificationLanguage | null }>;

type MessageOutboxTable = Narrowed<Tables.MessageOutbox, { withheld_class: WithheldClass | null }>;

type BusinessesTable = Narrowed<
  Tables.Businesses,
  {
    turn_times: ColumnType<TurnTime[], string | undefined, string>;
    notification_language: Generated<NotificationLanguage>;
    time_format: TimeFormat | null;
  }
>;

/** A period's own turn times; null takes the business's. */
type ServicePeriodsTable = Narrowed<
  Tables.ServicePeriods,
  { turn_times: ColumnType<TurnTime[], string, string> | null }
>;

/** A group of resources a service's booking holds `count` of, as `services.requirements` stores it. */
export interface ServiceRequirement {
  name: string;
  resource_ids: string[];
  count: number;
}

type ServicesTable = Narrowed<
  Tables.Services,
  { requirements: ColumnType<ServiceRequirement[], string | undefined, string> }
>;

export type MembershipRole = 'business_owner' | 'staff_member';

/** A dashboard user's role in one business. */
export type MembershipStatus = 'invited' | 'active';

type MembershipsTable = Narrowed<
  Tables.Memberships,
  {
    role: MembershipRole;
    status: MembershipStatus;
  }
>;

type AccountKind = 'developer' | 'user';

type LoginFailuresTable = Narrowed<Tables.LoginFailures, { account_kind: AccountKind | 'partner' }>;

type RefreshTokensTable = Narrowed<Tables.RefreshTokens, { subject_kind: AccountKind }>;

export type ApiKeyType = 'secret' | 'publishable';

/**
 * How a booking was made: online (a widget, a page, the API), by staff, in the sandbox, or by a
 * reservation partner (partners/); bookings.source's CHECK.
 */
export const BOOKING_SOURCES = ['online', 'staff', 'sandbox', 'partner'] as const;
export type BookingSource = (typeof BOOKING_SOURCES)[number];

type ApiKeysTable = Narrowed<Tables.ApiKeys, { environment: 'live' | 'test'; type: Generated<ApiKeyType> }>;

export type BookingsTable = Narrowed<Tables.Bookings, { status: BookingStatus; source: BookingSource }>;

/**
 * The view db/views/booking_views.sql: each booking as the API shows it (`view`, whose type is
 * bookings/bookings.view.ts's `BookingView`), beside the booking's columns lists filter and sort
 * on and the UTC dates (`YYYY-MM-DD`) its held time touches. PostgreSQL reports every column of a
 * view as nullable; these never are.
 */
type BookingViewsTable = Narrowed<
  Tables.BookingViews,
  {
    business_id: string;
    id: string;
    booking_date: string;
    start_time: string;
    created_at: Tables.Timestamp;
    status: BookingStatus;
    confirmation_code: string;
    resource_id: string;
    customer_id: string;
    held_dates: ColumnType<string[], string, string>;
  }
>;

export type DepositStatus =
  | 'requires_payment'
  | 'held'
  | 'paid'
  | 'captured'
  | 'released'
  | 'refunded'
  | 'failed';

type Processor = 'stripe' | 'simulated';

export type DepositsTable = Narrowed<
  Tables.Deposits,
  { type: 'charge' | 'authorization_hold'; status: DepositStatus; processor: Processor }
>;

type ConnectedAccountsTable = Narrowed<Tables.ConnectedAccounts, { processor: Processor }>;

export type BillingCleanupAction = 'expire_checkout' | 'cancel_subscription';

type BillingCleanupsTable = Narrowed<Tables.BillingCleanups, { action: BillingCleanupAction }>;

/** The simulated processor's objects are always JSON objects. */
type SimulatedProcessorObjectsTable = Narrowed<
  Tables.SimulatedProcessorObjects,
  { object: ColumnType<Record<string, unknown>, string, string> }
>;

export type WebhookEndpointStatus = 'active' | 'failing';

type WebhookEndpointsTable = Narrowed<Tables.WebhookEndpoints, { status: Generated<WebhookEndpointStatus> }>;

export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed';

type WebhookDeliveriesTable = Narrowed<
  Tables.WebhookDeliveries,
  { status: Generated<WebhookDeliveryStatus> }
>;

/**
 * Kysely's view of the database: the tables and views of `db.generated.ts` (generated from the
 * migrated database by `npm run schema:generate`), with the text columns that a CHECK limits to a
 * few values typed as those values. Dates are `YYYY-MM-DD` and times `HH:MM:SS` strings.
 */
export type DB = Narrowed<
  Tables.DB,
  {
    developers: DevelopersTable;
    businesses: BusinessesTable;
    customers: CustomersTable;
    message_outbox: MessageOutboxTable;
    service_periods: ServicePeriodsTable;
    services: ServicesTable;
    memberships: MembershipsTable;
    login_failures: LoginFailuresTable;
    refresh_tokens: RefreshTokensTable;
    api_keys: ApiKeysTable;
    bookings: BookingsTable;
    booking_views: BookingViewsTable;
    deposits: DepositsTable;
    connected_accounts: ConnectedAccountsTable;
    billing_cleanups: BillingCleanupsTable;
    simulated_processor_objects: SimulatedProcessorObjectsTable;
    webhook_endpoints: WebhookEndpointsTable;
    webhook_deliveries: WebhookDeliveriesTable;
  }
>;
