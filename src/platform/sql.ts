/** Small SQL value helpers shared by every area's queries. */

/** `text` as a literal inside a LIKE/ILIKE pattern: `%`, `_` and the escape character match themselves. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `[start,end)` as a tstzrange literal, from epoch milliseconds. */
export const rangeLiteral = (start: number, end: number) =>
  `[${new Date(start).toISOString()},${new Date(end).toISOString()})`;
