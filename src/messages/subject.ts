/** The longest venue name a subject line shows. */
const SUBJECT_NAME_CHARS = 60;

/**
 * A business's name as every subject line shows it: the business chooses it, and the mail leaves
 * from the platform's sender, so it must read as a quoted venue name and never as the platform's
 * own words. Control and invisible formatting characters (line breaks, bidirectional overrides)
 * become spaces, runs of spaces one, and a long name is cut at 60 characters with an ellipsis.
 */
export function venueInSubject(name: string): string {
  const clean = name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...clean];
  const shown =
    chars.length > SUBJECT_NAME_CHARS
      ? `${chars
          .slice(0, SUBJECT_NAME_CHARS - 1)
          .join('')
          .trimEnd()}…`
      : clean;
  return `"${shown}"`;
}
