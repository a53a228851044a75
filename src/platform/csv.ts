import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { withDbDeadline } from './deadline.ts';
import type { Page, PageRequest } from './pagination.ts';

/** A CSV download's answer as the API's description states it. */
export const CSV_RESPONSE = {
  200: {
    description: 'RFC 4180 with CRLF, UTF-8 with a byte order mark, a header row first',
    content: { 'text/csv': { schema: Type.String() } },
  },
};

/** Rows fetched per query of a CSV: memory holds one batch, and no query holds a connection long. */
const CSV_BATCH = 500;

/** A column of a CSV: its header and how a row gives its cell. */
export interface CsvColumn<T> {
  header: string;
  cell(row: T): string | number | boolean | null;
}

/**
 * Every item of a keyset-paginated list, page after page, as the list's JSON route would serve
 * them with `limit` and `cursor`: the same filters, the same order. Each page has the database
 * deadline of a request of its own (`deadlineMs`, 0: none): a download runs as long as its rows
 * take, while no one query of it may wait longer than any request's.
 */
export async function* everyItem<T>(
  first: PageRequest,
  deadlineMs: number,
  fetch: (page: PageRequest) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const request = { ...first, cursor, limit: CSV_BATCH };
    const page = await (deadlineMs > 0
      ? withDbDeadline(Date.now() + deadlineMs, () => fetch(request))
      : fetch(request));
    yield* page.items;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

/**
 * A cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return) is written quoted behind a `'`, so it shows as the text it is.
 */
const inert = (value: string) => (/^[=+\-@\t\r]/.test(value) ? { value: `'${value}`, quoted: true } : value);

/**
 * Answers `rows` as an RFC 4180 CSV download (CRLF, quoted where needed, UTF-8 with a byte order
 * mark so spreadsheets read the accents), streamed as the rows come. The first batch is read
 * before anything is sent, so a refused filter or a stopped search is answered as an error; a
 * later failure cuts the download short.
 */
export async function sendCsv<T>(
  reply: FastifyReply,
  filename: string,
  columns: CsvColumn<T>[],
  rows: AsyncIterable<T>,
) {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  const records = Readable.from(
    (async function* () {
      if (first.done) return;
      yield columns.map((column) => column.cell(first.value));
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        yield columns.map((column) => column.cell(next.value));
      }
    })(),
  );
  const csv = stringify({
    bom: true,
    header: true,
    columns: columns.map((column) => column.header),
    record_delimiter: 'windows',
    cast: { string: inert, boolean: (value) => (value ? 'true' : 'false') },
  });
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'private, no-store')
    .send(
      pipeline(records, csv, (error) => {
        if (error) reply.log.warn({ err: error }, 'a CSV download was cut short');
      }),
    );
}
