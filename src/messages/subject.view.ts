/** The longest venue name a subject line shows. */
const SUBJECT_NAME_CHARS = 60;

/** An RFC 2047 encoded word, as lenient readers find it (mailparser decodes one with spaces inside). */
const ENCODED_WORD = /=\?[^?]*\?[^?]*\?[^?]*\?=/g;

/**
 * A business's name as every mail header that carries it shows it (the From display name, the
 * subject): the business chooses it, and the mail leaves from the platform's sender. Invisible
 * formatting characters (bidirectional overrides, zero-width ones) are removed, control characters
 * and line breaks become spaces, and then encoded words (`=?utf-8?b?...?=`), which a mail reader
 * would decode into whatever their author chose, are removed until none is left (removing one may
 * join the text around it into another). Runs of spaces become one, and a long name is cut at 60
 * characters with an ellipsis. The result is handed to the mail library to encode (`{ name,
 * address }`), never written into a header by hand.
 */
export function venueInHeader(name: string): string {
  let clean = name.replace(/\p{Cf}/gu, '').replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ');
  for (let previous = ''; previous !== clean; ) {
    previous = clean;
    clean = clean.replace(ENCODED_WORD, '');
  }
  clean = clean.replace(/\s+/g, ' ').trim();
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
