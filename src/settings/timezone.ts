/**
 * An IANA zone name both Intl and PostgreSQL understand. Offsets such as `+01:00` are refused:
 * PostgreSQL reads them with the POSIX sign, the opposite of ISO 8601.
 */
export function isValidTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
