import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SQLSTATE } from './sqlstates.model.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The text of every file under `dir` whose name ends with `suffix`. */
const textsOf = (dir: string, suffix: string) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith(suffix))
    .map((path) => ({ path: join(dir, path), text: readFileSync(join(ROOT, dir, path), 'utf8') }));

describe('the SQLSTATE registry', () => {
  it('names every code raised in db/, and only those', () => {
    const raisedInDb = new Set(
      textsOf('db', '.sql').flatMap(({ text }) =>
        [...text.matchAll(/ERRCODE\s*=\s*'(SW[0-9A-Z]{3})'/g)].map((match) => match[1]!),
      ),
    );
    assert.deepEqual([...raisedInDb].sort(), Object.values(SQLSTATE).sort());
  });

  it('is the only place TypeScript spells a code', () => {
    const spelled = textsOf('src', '.ts')
      .filter(({ path }) => !path.endsWith('sqlstates.model.ts') && !path.endsWith('.test.ts'))
      .filter(({ text }) => /['"`]SW[0-9A-Z]{3}['"`]/.test(text))
      .map(({ path }) => path);
    assert.deepEqual(spelled, []);
  });
});
