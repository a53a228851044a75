/**
 * Writes the server's OpenAPI document to `openapi.json` and the SDK's types generated from it to
 * `src/schema.d.ts`. With `--check` it writes nothing and fails when either committed file differs
 * from what the server's code makes now (CI runs it, so the SDK never lags the API).
 *
 * The document is taken from the app itself, built in this process on an in-memory PGlite: no
 * server, port or data folder is needed, and the result depends on the code alone.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openPGlite } from '../../src/platform/db.ts';

const DOCUMENT = new URL('openapi.json', import.meta.url);
const TYPES = new URL('src/schema.d.ts', import.meta.url);

const HEADER = `/**
 * The Slotwise API's paths and schemas, generated from its OpenAPI document by openapi-typescript.
 * Do not edit: \`npm run sdk:generate\` writes it again.
 */

`;

async function serverDocument(): Promise<OpenAPI3> {
  const database = await openPGlite();
  // Only the document's `servers` entry depends on the configuration: no variable of this shell may change it.
  const config = loadConfig({ JWT_SECRET: randomBytes(32).toString('hex') });
  const app = await buildApp({ config, database });
  try {
    await app.ready();
    return app.swagger() as OpenAPI3;
  } finally {
    await app.close();
    await database.close();
  }
}

const readOrEmpty = (file: URL) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

const document = await serverDocument();
const files = [
  { file: DOCUMENT, text: `${JSON.stringify(document, null, 2)}\n` },
  { file: TYPES, text: HEADER + astToString(await openapiTS(document, { silent: true })) },
];

if (process.argv.includes('--check')) {
  const stale = files.filter(({ file, text }) => readOrEmpty(file) !== text);
  for (const { file } of stale) {
    process.stderr.write(`${file.pathname} differs from the server's API: run \`npm run sdk:generate\`\n`);
  }
  process.exitCode = stale.length > 0 ? 1 : 0;
} else {
  for (const { file, text } of files) writeFileSync(file, text);
}
