import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { example, IdParams, Uuid } from '../platform/schemas.ts';
import { CustomerView, ProfilePatch } from './customers.view.ts';
import { changeProfile, eraseProfile, likelyDuplicates, mergeProfiles } from './profiles.service.ts';

const CustomerParams = IdParams('customer_id');

/** What staff do with a guest's profile: edit it, merge a duplicate into another, erase it on request. */
export const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, {
    tags: ['Customers'],
    write: requireBusiness({ scope: 'write', staff: true }),
  });
  routes.change('PATCH', '/v1/manage/customers/:customer_id', {
    operationId: 'updateCustomer',
    summary: 'Edit a guest’s profile: names, email, tags, allergies, staff notes, language (audited)',
    params: CustomerParams,
    body: example(ProfilePatch, {
      tags: ['vip', 'regular'],
      allergies: 'peanuts',
      staff_notes: 'Likes table 4',
    }),
    response: { 200: CustomerView },
    change: (tx, principal, { params, body }) => changeProfile(tx, principal, params.customer_id, body),
  });

  routes.change('POST', '/v1/manage/customers/:customer_id/merge', {
    operationId: 'mergeCustomer',
    summary:
      'Merge this duplicate into another profile: its bookings, waitlist entries and messages move, tags, allergies and notes join; its phone then reaches the kept profile',
    params: CustomerParams,
    body: example(Type.Object({ into: Uuid }, { additionalProperties: false }), {
      into: '0f8fad5b-d9cb-469f-a165-70867728950e',
    }),
    response: { 200: CustomerView },
    change: (tx, principal, { params, body }) => mergeProfiles(tx, principal, params.customer_id, body.into),
  });

  routes.route('GET', '/v1/manage/customers/:customer_id/duplicates', {
    operationId: 'listCustomerDuplicates',
    summary:
      'Profiles that are likely the same guest: the same email (any case) or the same national phone; at most 10, oldest first',
    description:
      'Each with `match`: what it shares with this profile. Merged and erased profiles are never listed. Merge one with `POST /v1/manage/customers/{its id}/merge {into}`.',
    params: CustomerParams,
    response: {
      200: Type.Object({
        items: Type.Array(
          Type.Object({
            ...CustomerView.properties,
            match: Type.Array(Type.Union([Type.Literal('email'), Type.Literal('phone')])),
          }),
        ),
      }),
    },
    handler: async (request) =>
      likelyDuplicates(app.db, principalOf(request).businessId, request.params.customer_id),
  });

  routes.change('POST', '/v1/manage/customers/:customer_id/erase', {
    onRequest: requireBusiness({ scope: 'admin' }),
    operationId: 'eraseCustomer',
    summary:
      'Erase a guest’s personal data everywhere (names, contact, notes, allergies, messages); the bookings stay, anonymous, for the counts',
    params: CustomerParams,
    response: { 200: CustomerView },
    change: (tx, principal, { params }) => eraseProfile(tx, principal, params.customer_id),
  });
};
