import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export const generateSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** `x-service-signature`: the hex HMAC-SHA256 of the raw body, keyed with the secret exactly as shown. */
export const hexSignature = (secret: string, body: string) =>
  createHmac('sha256', secret).update(body).digest('hex');

/** One Standard Webhooks signature: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's bytes. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface SigningInput {
  /** The event's id: the same on every attempt, so a receiver can drop repeats. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  body: string;
  secret: string;
  /** The secret replaced by a rotation, while it is still honoured. */
  previousSecret?: string;
}

/** The signature headers of one attempt; during a rotation `webhook-signature` carries both signatures. */
export function signatureHeaders(input: SigningInput): Record<string, string> {
  const signatures = [input.secret, ...(input.previousSecret ? [input.previousSecret] : [])].map((secret) =>
    standardSignature(secret, input.id, input.timestamp, input.body),
  );
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': signatures.join(' '),
    'x-service-signature': hexSignature(input.secret, input.body),
  };
}
