/**
 * What went wrong, said in the page's one live region (`<Problems>` in the shell): every failed
 * call lands here through `report()`, none is swallowed.
 */
import { signal } from '@preact/signals';
import { ApiError } from './api.ts';
import { type TextKey, t } from './i18n.ts';

export const problem = signal<string | null>(null);

const BY_CODE: Record<string, TextKey> = {
  network: 'errNetwork',
  insufficient_permissions: 'errForbidden',
  rate_limit_exceeded: 'errLocked',
  slot_unavailable: 'newErrNoTable',
  outside_operating_hours: 'newErrClosed',
  outside_booking_window: 'newErrWindow',
  deposits_not_enabled: 'newErrDeposits',
};

/** Why the API refused a booking, by its code, in the dashboard's words; else in the API's. */
export function refusalText(code: string, message: string): string {
  const key = BY_CODE[code];
  return key ? t(key) : message;
}

export function describe(error: unknown): string {
  if (error instanceof ApiError) {
    const key = BY_CODE[error.code] ?? (error.status === 401 ? 'errExpired' : undefined);
    if (key) return t(key);
    // A refusal of the booking's rules (status, time, table) says which rule, in the API's words.
    if (error.status === 409) return t('errRefused', { reason: error.message });
    return t('errFailed', { code: error.code });
  }
  return t('errFailed', { code: error instanceof Error ? error.name : 'error' });
}

export function report(error: unknown): void {
  problem.value = describe(error);
}

export function clearProblem(): void {
  problem.value = null;
}
