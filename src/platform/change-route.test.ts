import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { type TSchema, Type } from 'typebox';
import { changeRoute } from './change-route.ts';
import { errorResponses } from './schemas.ts';

const declare = (response: Record<number, TSchema>) =>
  changeRoute(Fastify(), 'POST', '/probe', {
    onRequest: async () => {},
    operationId: 'probe',
    tags: ['Probe'],
    summary: 'a probe',
    response,
    change: async () => null,
  });

describe('changeRoute', () => {
  it('answers the one success status its response documents', () => {
    assert.doesNotThrow(() => declare({ 204: Type.Null(), ...errorResponses(409) }));
  });

  it('is refused when its response documents no success status, or two', () => {
    assert.throws(
      () => declare({ ...errorResponses(404) }),
      /probe: a change route answers one success status/,
    );
    assert.throws(
      () => declare({ 200: Type.Null(), 201: Type.Null() }),
      /probe: a change route answers one success status/,
    );
  });
});
