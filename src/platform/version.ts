import { readFileSync } from 'node:fs';

/** One version number for the package and the API it serves: package.json's, read at start. */
export const API_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;
