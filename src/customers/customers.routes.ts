import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { areaRoutes } from '../platform/change-route.ts';
import { CSV_RESPONSE, type CsvColumn, everyItem, sendCsv } from '../platform/csv.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { findCustomers, SEARCH_LENGTH, SEARCH_TIMEOUT_MS } from './customers.service.ts';
import { type CustomerListItem, CustomerView } from './customers.view.ts';

const CustomerFilters = {
  search: Type.Optional(
    Type.String({
      minLength: SEARCH_LENGTH.min,
      maxLength: SEARCH_LENGTH.max,
      description: `partial match on first name, last name, phone or email, whatever the case and accents; a phone number also matches whatever its formatting, in its national or international form. At most ${SEARCH_LENGTH.max} characters, at least ${SEARCH_LENGTH.min} of them besides the spaces around them; \`%\`, \`_\` and \`\\\` match only themselves. A search running longer than ${SEARCH_TIMEOUT_MS / 1000} s is stopped: 503 \`search_timeout\` with \`Retry-After\`.`,
    }),
  ),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'only guests with this tag' })),
};

/** The columns of customers.csv: the list's fields, tags joined by `; `. */
const CUSTOMER_CSV: CsvColumn<CustomerListItem>[] = [
  { header: 'id', cell: (c) => c.id },
  { header: 'first_name', cell: (c) => c.first_name },
  { header: 'last_name', cell: (c) => c.last_name },
  { header: 'phone', cell: (c) => c.phone },
  { header: 'email', cell: (c) => c.email },
  { header: 'tags', cell: (c) => c.tags.join('; ') },
  { header: 'allergies', cell: (c) => c.allergies },
  { header: 'staff_notes', cell: (c) => c.staff_notes },
  { header: 'marketing_opt_in', cell: (c) => c.marketing_opt_in },
  { header: 'preferred_language', cell: (c) => c.preferred_language },
  { header: 'visits', cell: (c) => c.visits },
  { header: 'no_shows', cell: (c) => c.no_shows },
  { header: 'cancellations', cell: (c) => c.cancellations },
  { header: 'last_visit', cell: (c) => c.last_visit },
  { header: 'total_covers', cell: (c) => c.total_covers },
  { header: 'created_at', cell: (c) => c.created_at },
];

export const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Customers'] });

  routes.route('GET', '/v1/manage/customers', {
    operationId: 'listCustomers',
    summary: 'List customers by last name, optionally searching name, phone and email',
    querystring: Type.Object({ ...CustomerFilters, ...PageQuery }, { additionalProperties: false }),
    response: { 200: pageEnvelope(CustomerView) },
    handler: async (request) =>
      findCustomers(app.db, pageOf(request), request.query.search, request.query.tag),
  });

  routes.route('GET', '/v1/manage/customers.csv', {
    operationId: 'downloadCustomers',
    summary: 'Every customer the list would show, as a CSV download (RFC 4180, UTF-8 with BOM)',
    description:
      "The same filters and order as `GET /v1/manage/customers`, every page. A cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is written behind a `'`.",
    querystring: Type.Object(CustomerFilters, { additionalProperties: false }),
    response: CSV_RESPONSE,
    handler: async (request, reply) => {
      const { search, tag } = request.query;
      const rows = everyItem(pageOf(request), app.config.dbRequestDeadlineMs, (page) =>
        findCustomers(app.db, page, search, tag),
      );
      return sendCsv(reply, 'customers.csv', CUSTOMER_CSV, rows);
    },
  });
};
