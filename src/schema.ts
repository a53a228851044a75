import type { ColumnType, Generated } from 'kysely';

/** Kysely's view of the tables in `migrations/`. Dates are `YYYY-MM-DD` and times `HH:MM:SS` strings. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json = ColumnType<unknown, string | null | undefined, string | null>;

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

export interface DevelopersTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  subscription_status: Generated<SubscriptionStatus>;
  subscription_plan_id: Generated<StoredPlanId>;
  trial_ends_at: Generated<Date>;
  current_period_ends_at: Timestamp | null;
  processor_customer_id: string | null;
  processor_subscription_id: string | null;
  subscription_event_at: Timestamp | null;
  /** The developer's open plan checkout at the processor (`cs_...`); opening another expires it. */
  billing_checkout_id: string | null;
  created_at: Generated<Date>;
}

/** A month's bookings of a developer, counted on eight rows (`shard`); the count is their sum. */
export interface BookingUsageTable {
  developer_id: string;
  month: string;
  shard: Generated<number>;
  bookings: number;
}

/** Migration 0022: a sandbox business's bookings per calendar month (UTC), below its cap. */
export interface SandboxUsageTable {
  business_id: string;
  month: string;
  bookings: number;
}

export interface BusinessesTable {
  id: Generated<string>;
  developer_id: string;
  name: string;
  slug: string;
  business_type: string | null;
  is_dev: Generated<boolean>;
  created_at: Generated<Date>;
  timezone: Generated<string>;
  default_slot_interval_minutes: Generated<number>;
  default_slot_duration_minutes: Generated<number>;
  booking_window_days: Generated<number>;
  min_notice_hours: Generated<number>;
  min_capacity: Generated<number>;
  max_capacity: Generated<number>;
  auto_confirm_bookings: Generated<boolean>;
  default_deposit_amount_cents: Generated<number>;
  booking_mode: Generated<string>;
  buffer_minutes: Generated<number>;
  deposit_type: Generated<string>;
  payment_hold_minutes: Generated<number>;
  cancellation_cutoff_hours: Generated<number>;
  /** Migration 0022: online bookings a client IP may make per hour with a publishable key. */
  public_bookings_per_ip_per_hour: Generated<number>;
}

/** A dashboard user: one email (lower case) and one password, whatever the number of businesses. */
export interface UsersTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  /** Raised to end every session of the account; access tokens carry the value they were issued under. */
  session_epoch: Generated<number>;
  created_at: Generated<Date>;
}

export type MembershipRole = 'business_owner' | 'staff_member';

/** A dashboard user's role in one business. */
export type MembershipStatus = 'invited' | 'active';

export interface MembershipsTable {
  id: Generated<string>;
  user_id: string;
  business_id: string;
  role: MembershipRole;
  /** `invited` grants nothing until the person accepts the emailed link. */
  status: MembershipStatus;
  /** When the invitation was (last) sent. */
  invited_at: Generated<Date>;
  /** SHA-256 of the pending invitation link's token; null once accepted. */
  invite_token_hash: string | null;
  invite_expires_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface LoginFailuresTable {
  id: Generated<number>;
  account_kind: 'developer' | 'user';
  email: string;
  /** The client address the attempt came from; null for failures recorded before addresses were. */
  client_ip: string | null;
  failed_at: Timestamp;
}

export interface RefreshTokensTable {
  id: Generated<string>;
  token_hash: string;
  subject_kind: 'developer' | 'user';
  subject_id: string;
  /** The business a dashboard user's session acts on; null for developers. */
  business_id: string | null;
  /** Shared by every token descended from one login: a spent one presented again revokes them all. */
  family_id: Generated<string>;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: Generated<string>;
  business_id: string;
  name: string;
  prefix: string;
  lookup: string;
  key_hash: string;
  scopes: string[];
  environment: 'live' | 'test';
  rate_limit_per_minute: number | null;
  is_active: Generated<boolean>;
  created_at: Generated<Date>;
  last_used_at: Timestamp | null;
  type: Generated<ApiKeyType>;
  /** Origins (`https://shop.example`) a publishable key may be used from; empty for secret keys. */
  allowed_origins: Generated<string[]>;
  /** The business's default publishable key, the one its hosted booking page uses. */
  is_default: Generated<boolean>;
  /** The full key, for publishable keys only (they are no secret); null for secret keys. */
  public_key: string | null;
}

export type ApiKeyType = 'secret' | 'publishable';

export interface AuditLogsTable {
  id: Generated<string>;
  seq: Generated<number>;
  business_id: string;
  user_email: string;
  action: string;
  entity_type: string;
  entity_id: string | null;
  before_state: Json;
  after_state: Json;
  meta: ColumnType<unknown, string | undefined, string>;
  created_at: Generated<Date>;
}

export interface ResourcesTable {
  id: Generated<string>;
  business_id: string;
  name: string;
  resource_type: string | null;
  capacity_min: number;
  capacity_max: number;
  section: string | null;
  display_order: number;
  is_active: Generated<boolean>;
  created_at: Generated<Date>;
  deleted_at: Timestamp | null;
}

export interface ServicesTable {
  id: Generated<string>;
  business_id: string;
  name: string;
  description: string | null;
  duration_minutes: number;
  buffer_before_minutes: Generated<number>;
  buffer_after_minutes: Generated<number>;
  price_cents: number | null;
  resource_ids: Generated<string[]>;
  is_active: Generated<boolean>;
  created_at: Generated<Date>;
  deleted_at: Timestamp | null;
}

export interface OperatingHoursTable {
  business_id: string;
  day_of_week: number;
  is_open: boolean;
  open_time: string | null;
  close_time: string | null;
  last_booking_time: string | null;
}

export interface BlackoutDatesTable {
  id: Generated<string>;
  business_id: string;
  start_date: string;
  end_date: string;
  reason: string | null;
  created_at: Generated<Date>;
}

export interface CustomersTable {
  id: Generated<string>;
  business_id: string;
  first_name: string;
  last_name: string;
  phone: string;
  phone_normalized: string;
  email: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ResourceBlocksTable {
  id: Generated<string>;
  business_id: string;
  resource_id: string;
  /** A tstzrange literal such as `[2026-01-01 10:00+00,2026-01-01 11:00+00)`. */
  during: string;
  reason: string | null;
  source: string | null;
  created_at: Generated<Date>;
}

export type BookingStatus = 'pending' | 'confirmed' | 'checked_in' | 'completed' | 'cancelled' | 'no_show';
/** Statuses that hold their resource (the exclusion constraint covers exactly these). */
export const ACTIVE_STATUSES: readonly BookingStatus[] = ['pending', 'confirmed', 'checked_in'];

export interface BookingsTable {
  id: Generated<string>;
  business_id: string;
  customer_id: string;
  resource_id: string;
  service_id: string | null;
  booking_date: string;
  start_time: string;
  end_time: string;
  duration_minutes: number;
  starts_at: Timestamp;
  ends_at: Timestamp;
  during: string;
  status: BookingStatus;
  confirmation_code: string;
  capacity: number;
  source: 'online' | 'staff' | 'sandbox';
  customer_notes: string | null;
  staff_notes: string | null;
  /** The name and email given with this booking (migration 0007); null on older rows. */
  guest_first_name: string | null;
  guest_last_name: string | null;
  guest_email: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/**
 * The view db/views/booking_views.sql: each booking as the API shows it (`view`, whose type is
 * bookings/bookings.view.ts's `BookingView`), beside the booking's columns lists filter and sort
 * on and the UTC dates (`YYYY-MM-DD`) its held time touches.
 */
export interface BookingViewsTable {
  business_id: string;
  id: string;
  booking_date: string;
  start_time: string;
  created_at: Date;
  status: BookingStatus;
  confirmation_code: string;
  resource_id: string;
  customer_id: string;
  held_dates: string[];
  view: unknown;
}

export interface WaitlistEntriesTable {
  id: Generated<string>;
  business_id: string;
  customer_id: string;
  preferred_date: string | null;
  service_id: string | null;
  capacity: Generated<number>;
  notes: string | null;
  /** The name and email given with this entry (migration 0007); null on older rows. */
  guest_first_name: string | null;
  guest_last_name: string | null;
  guest_email: string | null;
  created_at: Generated<Date>;
}

export interface IdempotencyKeysTable {
  credential: string;
  key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  sealed: Generated<boolean>;
  created_at: Generated<Date>;
}

export type DepositStatus =
  | 'requires_payment'
  | 'held'
  | 'paid'
  | 'captured'
  | 'released'
  | 'refunded'
  | 'failed';

export interface DepositsTable {
  id: Generated<string>;
  business_id: string;
  booking_id: string;
  type: 'charge' | 'authorization_hold';
  status: DepositStatus;
  amount_cents: number;
  currency: string;
  processor: 'stripe' | 'simulated';
  processor_payment_id: string | null;
  processor_setup_id: string | null;
  processor_checkout_id: string | null;
  processor_customer_id: string | null;
  processor_payment_method_id: string | null;
  checkout_url: string | null;
  expires_at: Timestamp | null;
  hold_due_at: Timestamp | null;
  /** Migration 0012: money arrived for a cancelled booking; a job refunds it or releases the hold. */
  reversal_due_at: Timestamp | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ProcessorEventsTable {
  id: string;
  type: string;
  received_at: Generated<Date>;
}

export interface ConnectedAccountsTable {
  business_id: string;
  processor: 'stripe' | 'simulated';
  processor_account_id: string;
  details_submitted: Generated<boolean>;
  charges_enabled: Generated<boolean>;
  payouts_enabled: Generated<boolean>;
  synced_at: Timestamp | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface EmailOutboxTable {
  id: Generated<string>;
  business_id: string | null;
  to_address: string;
  subject: string;
  body_text: string;
  created_at: Generated<Date>;
  sent_at: Timestamp | null;
  attempts: Generated<number>;
  last_error: string | null;
  /** Migration 0012: when the sender tries it next. */
  next_attempt_at: Timestamp;
  /** Migration 0022: a sandbox business's message to an outside address, logged instead of sent. */
  withheld_at: Timestamp | null;
}

export type BillingCleanupAction = 'expire_checkout' | 'cancel_subscription';

/** Work left at the processor about a developer's billing (migrations/0023), done by a job. */
export interface BillingCleanupsTable {
  processor_object_id: string;
  developer_id: string;
  action: BillingCleanupAction;
  due_at: Generated<Date>;
  attempts: Generated<number>;
  created_at: Generated<Date>;
}

export interface SimulatedProcessorObjectsTable {
  id: string;
  object: ColumnType<Record<string, unknown>, string, string>;
  idempotency_key: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type WebhookEndpointStatus = 'active' | 'failing';

export interface WebhookEndpointsTable {
  id: Generated<string>;
  business_id: string;
  url: string;
  description: string | null;
  events: string[];
  /** Sealed (`platform/secrets.ts`); never stored in plain text. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  is_active: Generated<boolean>;
  status: Generated<WebhookEndpointStatus>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface WebhookEventsTable {
  id: Generated<string>;
  business_id: string;
  type: string;
  data: Json;
  created_at: Generated<Date>;
}

export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  seq: Generated<number>;
  business_id: string;
  endpoint_id: string;
  event_id: string;
  subject_key: string;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  locked_until: Timestamp | null;
  last_response_code: number | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface DB {
  developers: DevelopersTable;
  booking_usage: BookingUsageTable;
  sandbox_usage: SandboxUsageTable;
  businesses: BusinessesTable;
  users: UsersTable;
  memberships: MembershipsTable;
  login_failures: LoginFailuresTable;
  refresh_tokens: RefreshTokensTable;
  api_keys: ApiKeysTable;
  audit_logs: AuditLogsTable;
  resources: ResourcesTable;
  services: ServicesTable;
  operating_hours: OperatingHoursTable;
  blackout_dates: BlackoutDatesTable;
  customers: CustomersTable;
  resource_blocks: ResourceBlocksTable;
  bookings: BookingsTable;
  booking_views: BookingViewsTable;
  waitlist_entries: WaitlistEntriesTable;
  idempotency_keys: IdempotencyKeysTable;
  deposits: DepositsTable;
  processor_events: ProcessorEventsTable;
  connected_accounts: ConnectedAccountsTable;
  email_outbox: EmailOutboxTable;
  simulated_processor_objects: SimulatedProcessorObjectsTable;
  billing_cleanups: BillingCleanupsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
