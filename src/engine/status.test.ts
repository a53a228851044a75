import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  allowsMove,
  BOOKING_STATUSES,
  HOLDING_STATUSES,
  isTerminal,
  type StatusMover,
  TERMINAL_STATUSES,
} from './status.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const MOVERS: StatusMover[] = ['staff', 'guest', 'payment'];

/** The source files under `dir` (tests and generated files aside), with their text. */
const sourcesOf = (dir: string, skip: RegExp) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.(sql|ts|tsx)$/.test(path) && !/\.test\.ts$/.test(path) && !skip.test(path))
    .map((path) => ({ path: join(dir, path), text: readFileSync(join(ROOT, dir, path), 'utf8') }));

const QUOTED_STATUS = new RegExp(`(['"])(${BOOKING_STATUSES.join('|')})\\1`, 'g');
/** What may stand between two statuses of one list: a comma, or the next comparison of a chain. */
const BETWEEN_ITEMS = /^\s*(,|(\|\||&&|\bOR\b|\bAND\b)\s*[\w.]+\s*(===|!==|==|!=|=|<>))\s*$/i;

/** Each run of two or more quoted statuses written as one list (`IN (...)`, `[...]`, `a === x || a === y`). */
function statusLists(text: string): string[][] {
  const lists: string[][] = [];
  let list: string[] = [];
  let end = -1;
  for (const match of text.matchAll(QUOTED_STATUS)) {
    if (end < 0 || !BETWEEN_ITEMS.test(text.slice(end, match.index))) {
      if (list.length > 1) lists.push(list);
      list = [];
    }
    list.push(match[2]!);
    end = match.index + match[0].length;
  }
  if (list.length > 1) lists.push(list);
  return lists;
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  new Set(a).size === new Set(b).size && a.every((status) => b.includes(status));

describe("the booking statuses' facts", () => {
  it('are what the status machine says: a status is terminal exactly when no move leads out of it', () => {
    for (const from of BOOKING_STATUSES) {
      const moves = BOOKING_STATUSES.filter((to) => MOVERS.some((by) => allowsMove(from, to, by)));
      assert.equal(isTerminal(from), moves.length === 0, from);
    }
    assert.ok(sameSet([...HOLDING_STATUSES, ...TERMINAL_STATUSES], BOOKING_STATUSES));
    assert.ok(HOLDING_STATUSES.every((status) => !isTerminal(status)));
  });

  it('are spelled out only in db/facts/: no other file of db/, src/, the dashboard, bench/ or test/ lists them again', () => {
    const facts = [BOOKING_STATUSES, HOLDING_STATUSES, TERMINAL_STATUSES];
    const spelled = [
      ...sourcesOf('db', /^facts\//),
      ...sourcesOf('src', /^engine\/status-facts\.generated\.ts$/),
      ...sourcesOf('dashboard', /^$/),
      ...sourcesOf('bench', /^$/),
      ...sourcesOf('test', /^$/),
    ].flatMap(({ path, text }) =>
      statusLists(text)
        .filter((list) => facts.some((fact) => sameSet(list, fact)))
        .map((list) => `${path}: ${list.join(', ')}`),
    );
    assert.deepEqual(spelled, []);
  });

  it('finds a list however it is written', () => {
    const found = (text: string) => statusLists(text).map((list) => list.join(' '));
    assert.deepEqual(found(`WHERE status IN ('pending', 'confirmed', 'checked_in')`), [
      'pending confirmed checked_in',
    ]);
    assert.deepEqual(found(`const CLOSED = ["completed", "cancelled", "no_show"];`), [
      'completed cancelled no_show',
    ]);
    assert.deepEqual(found(`s === 'pending' || s === 'confirmed' || b.status === 'checked_in'`), [
      'pending confirmed checked_in',
    ]);
    assert.deepEqual(found(`count('pending'), confirmed: count('confirmed')`), []);
  });
});
