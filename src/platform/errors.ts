import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import {
  BOUNDED_YEAR,
  HTTPS_URL_PATTERN,
  HTTPS_URL_RULE,
  NON_BLANK,
  PHONE_PATTERN,
  PHONE_RULE,
} from './schemas.ts';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * The machine codes of the contract and the one HTTP status each maps to. Services throw domain
 * errors by code; only this table decides how they travel over HTTP.
 */
export const STATUS_OF_CODE = {
  bad_request: 400,
  invalid_token: 401,
  payment_required: 402,
  plan_limit_reached: 402,
  plan_upgrade_required: 402,
  missing_scope: 403,
  insufficient_permissions: 403,
  /** A publishable key sent from an origin it does not list, or with no origin at all. */
  origin_not_allowed: 403,
  not_found: 404,
  conflict: 409,
  /** A sign-in whose email and password open accounts of both kinds: the caller says which. */
  account_choice_required: 409,
  slot_unavailable: 409,
  idempotency_mismatch: 409,
  /** A guest cancelling online after the business's cut-off before the start. */
  cancellation_cutoff_passed: 409,
  /** A guest changing their booking online after the business's cut-off before the start. */
  change_cutoff_passed: 409,
  /** A guest's change that would change the booking's deposit: the venue changes it. */
  deposit_would_change: 409,
  /** A waitlist offer's link used past its time: the time has passed to the next guest waiting. */
  offer_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  /** Deposits need a connected payment account that can take charges (sandbox businesses excepted). */
  deposits_not_enabled: 422,
  outside_operating_hours: 422,
  outside_booking_window: 422,
  /** A party the business seats, but larger than it takes online; the message says how to reach it. */
  party_too_large_online: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  not_ready: 503,
  /** Plans cannot be bought: no payment processor bills developers (no Stripe, simulated payments off). */
  billing_not_configured: 503,
  /** Overloaded, shutting down, or the database out of reach or stalled: sent with `Retry-After`. */
  service_unavailable: 503,
  /**
   * The business's requests already used their share of the database (`DB_CONCURRENCY_PER_BUSINESS`)
   * for all the time this one could wait: sent with `Retry-After`.
   */
  business_busy: 503,
  /** A customer search stopped at its statement timeout: sent with `Retry-After`; a longer text finds sooner. */
  search_timeout: 503,
} as const;

export type ErrorCode = keyof typeof STATUS_OF_CODE;

/** Every client-facing failure: a machine code from the contract and a human message. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly fields?: FieldError[];
  /** Some endpoints of the contract answer `{detail}`: sent beside `error:{code,message}`, the same text. */
  readonly detailBody: boolean;
  /** A limit's refusal says when trying again can succeed: sent as `Retry-After`. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ErrorCode,
    message: string,
    options: { fields?: FieldError[]; detail?: boolean; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.code = code;
    this.fields = options.fields;
    this.detailBody = options.detail ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return STATUS_OF_CODE[this.code];
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `${what} not found`);
export const conflict = (message: string) => new AppError('conflict', message);
export const validationError = (fields: FieldError[]) =>
  new AppError('validation_error', fields.map((f) => `${f.field}: ${f.message}`).join('; '), { fields });
export const invalidField = (field: string, message: string) => validationError([{ field, message }]);

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns Ajv's issues into `{field, message}` rows named by their JSON path (`customer.phone`, `hours[2].open_time`). */
export function fieldsFromValidation(issues: AjvIssue[], context: string | undefined): FieldError[] {
  const fields: FieldError[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    let path = issue.instancePath
      .split('/')
      .filter(Boolean)
      .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
      .join('')
      .replace(/^\./, '');
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'required') {
      path = path ? `${path}.${issue.params.missingProperty}` : String(issue.params.missingProperty);
      message = 'is required';
    } else if (issue.keyword === 'additionalProperties') {
      path = path ? `${path}.${issue.params.additionalProperty}` : String(issue.params.additionalProperty);
      message = 'is not a known field';
    } else if (issue.keyword === 'pattern' && issue.params.pattern === BOUNDED_YEAR) {
      message = 'must be in the years 1900-2999';
    } else if (issue.keyword === 'pattern' && issue.params.pattern === NON_BLANK) {
      message = 'must not be blank';
    } else if (issue.keyword === 'pattern' && issue.params.pattern === PHONE_PATTERN) {
      message = PHONE_RULE;
    } else if (issue.keyword === 'pattern' && issue.params.pattern === HTTPS_URL_PATTERN) {
      message = HTTPS_URL_RULE;
    } else if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf') {
      continue;
    }
    if (!path) path = context ?? 'body';
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fields.push({ field: path, message });
  }
  if (fields.length === 0) fields.push({ field: context ?? 'body', message: 'is invalid' });
  return fields;
}

/** Path parameters whose name does not say what they name. */
const PARAM_THINGS: Record<string, string> = {
  entry_id: 'waitlist entry',
  key_id: 'API key',
  user_id: 'staff member',
  block_id: 'resource block',
  endpoint_id: 'webhook endpoint',
  delivery_id: 'webhook delivery',
};

/** What a path parameter that failed its check names: `business_id` -> "business". */
function thingNamedBy(issues: AjvIssue[]): string {
  const param = issues[0]?.instancePath.replace(/^\//, '') ?? '';
  return PARAM_THINGS[param] ?? (param.replace(/_id$/, '').replace(/_/g, ' ') || 'resource');
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', error.retryAfterSeconds);
  if (error.detailBody) {
    return reply
      .status(error.status)
      .send({ detail: error.message, error: { code: error.code, message: error.message } });
  }
  const body: { error: { code: string; message: string; fields?: FieldError[] } } = {
    error: { code: error.code, message: error.message },
  };
  if (error.fields) body.error.fields = error.fields;
  return reply.status(error.status).send(body);
}

const PG_EXCLUSION_VIOLATION = '23P01';
const PG_UNIQUE_VIOLATION = '23505';
/**
 * SQLSTATE class 22, data exceptions: a value the database cannot take (a day that does not exist,
 * a number out of range, a byte it cannot store). Checks before the database should catch these.
 */
const isDataException = (code: unknown) => typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);

/** When a client should try again after the database failed as a whole. */
const OUTAGE_RETRY_AFTER_SECONDS = 5;

const OUTAGE_MESSAGES = {
  unreachable: 'the database cannot be reached; retry later',
  stalled: 'the database did not answer in time; retry later',
};

/** The one error handler: every failure leaves as `{error:{code,message}}` with no stack, SQL or internals. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { code?: string }, request, reply) => {
    if (error instanceof AppError) return sendError(reply, error);
    // Logged once per outage by the watch's listener (app.ts), not for each request it fails.
    const outage = app.database.outages.failed(error);
    if (outage) {
      reply.header('Retry-After', OUTAGE_RETRY_AFTER_SECONDS);
      return sendError(reply, new AppError('service_unavailable', OUTAGE_MESSAGES[outage]));
    }
    if (error.validation) {
      // Path parameters are all ids: one that is not even a UUID names nothing that exists.
      if (error.validationContext === 'params') {
        return sendError(reply, notFound(thingNamedBy(error.validation as AjvIssue[])));
      }
      const fields = fieldsFromValidation(error.validation as AjvIssue[], error.validationContext);
      return sendError(reply, validationError(fields));
    }
    if (error.code === PG_EXCLUSION_VIOLATION) {
      return sendError(reply, new AppError('slot_unavailable', 'the slot is no longer available'));
    }
    if (error.code === PG_UNIQUE_VIOLATION)
      return sendError(reply, conflict('a record with these values exists'));
    if (isDataException(error.code)) {
      // The client's value most likely slipped past validation: its answer names no field, and
      // the database's text, which may quote SQL, stays in the log.
      request.log.warn({ err: error }, 'the database refused a value of the request');
      return sendError(
        reply,
        new AppError('validation_error', 'a value in the request is malformed or out of range'),
      );
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, new AppError('unsupported_media_type', 'send the body as application/json'));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, new AppError('payload_too_large', 'the request body is too large'));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message =
        error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP')
          ? 'malformed JSON body'
          : 'bad request';
      return sendError(reply, new AppError(status === 404 ? 'not_found' : 'bad_request', message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new AppError('internal_error', 'something went wrong on our side; try again'));
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
