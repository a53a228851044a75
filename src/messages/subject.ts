/** The longest venue name a subject line shows. */
const SUBJECT_NAME_CHARS = 60;

/**
 * A business's name as a mail header shows it: the business chooses it, and the mail leaves from
 * the platform's sender. Control and invisible formatting characters (line breaks, bidirectional
 * overrides) become spaces, runs of spaces one, and a long name is cut at 60 characters with an
 * ellipsis.
 */
export function venueInHeader(name: string): string {
  const clean = name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...clean];
  return chars.length > SUBJECT_NAME_CHARS
    ? `${chars
        .slice(0, SUBJECT_NAME_CHARS - 1)
        .join('')
        .trimEnd()}…`
    : clean;
}

/**
 * The name as every subject line shows it: quoted, so that it reads as a venue's name and never as
 * the platform's own words.
 */
export const venueInSubject = (name: string): string => `"${venueInHeader(name)}"`;
