import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PARTY_SIZE_MAX } from './party.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the party ceiling', () => {
  it(`is spelled once: no schema or dashboard input writes ${PARTY_SIZE_MAX} itself`, () => {
    const spelled = ['src', 'dashboard'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((path) => /\.(ts|tsx)$/.test(path) && !/\.test\.ts$/.test(path))
        .filter((path) =>
          new RegExp(
            `maximum: ${PARTY_SIZE_MAX}\\b|max=\\{${PARTY_SIZE_MAX}\\}|int\\(1, ${PARTY_SIZE_MAX}\\b`,
          ).test(readFileSync(join(ROOT, dir, path), 'utf8')),
        )
        .map((path) => join(dir, path)),
    );
    assert.deepEqual(spelled, []);
  });
});
