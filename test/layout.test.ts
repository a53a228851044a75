import assert from 'node:assert/strict';
import { globSync } from 'node:fs';
import { describe, it } from 'node:test';

/**
 * The layers a file of an area may belong to, named by its last suffix (docs/architecture.md,
 * "Three layers in every area"): the import linter's rules are written against these names, so
 * a file without one would escape them.
 */
const LAYERS = [
  'routes',
  'http',
  'page',
  'service',
  'jobs',
  'events',
  'adapter',
  'queries',
  'view',
  'rules',
  'model',
  'area',
  'bundle',
  'worker',
  'browser',
  'test',
  'fixture',
];
const LAYERED = new RegExp(`\\.(${LAYERS.join('|')})\\.(ts|js)$`);

describe("the areas' files", () => {
  it('each name their layer', () => {
    const unlayered = globSync('src/*/*.{ts,js}')
      .filter((file) => !/^src\/(platform|engine)\//.test(file))
      .filter((file) => !LAYERED.test(file));
    assert.deepEqual(unlayered, []);
  });
});
