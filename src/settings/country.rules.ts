import { getCountry, getCountryForTimezone } from 'countries-and-timezones';

/**
 * A business's country (ISO 3166 alpha-2): the one it set, else its time zone's, from the IANA
 * zone data's zone table (`countries-and-timezones`; a zone shared by several countries, such as
 * Europe/Zurich, gives the one it is named for). Null for a zone of no country (`UTC`, `Etc/*`)
 * when none is set. Read each time, never stored, so a business that never set one follows its
 * time zone.
 */
export const businessCountry = (country: string | null, timezone: string): string | null =>
  country ?? getCountryForTimezone(timezone)?.id ?? null;

/** Whether `code` is an ISO 3166 alpha-2 country code, in capitals. */
export const isCountryCode = (code: string): boolean => /^[A-Z]{2}$/.test(code) && !!getCountry(code);

/**
 * The countries whose numbers a business may text: the ones it set, else its own country alone
 * (none while it has no country).
 */
export const smsCountriesOf = (smsCountries: readonly string[] | null, country: string | null): string[] =>
  smsCountries ? [...smsCountries] : country ? [country] : [];
