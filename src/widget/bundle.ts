import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { build } from 'esbuild';

/** A file the widget's routes serve: its bytes, gzipped once, and its ETag. */
export interface WidgetAsset {
  body: Buffer;
  gzipped: Buffer;
  etag: string;
}

export interface WidgetAssets {
  script: WidgetAsset;
  /** The texts of each language but English, by content-hashed file name (`fr.<hash>.json`). */
  texts: Map<string, WidgetAsset>;
}

const SOURCE = new URL('../../widget/', import.meta.url);

/** Browsers the bundle is written for: those with custom elements, shadow DOM and `Intl` in full. */
const TARGETS = ['chrome109', 'firefox115', 'safari15.4', 'edge109'];

const hashOf = (body: Buffer) => createHash('sha256').update(body).digest('base64url').slice(0, 16);

async function asset(body: Buffer): Promise<WidgetAsset> {
  return { body, gzipped: await promisify(gzip)(body, { level: 9 }), etag: `"${hashOf(body)}"` };
}

/**
 * The widget's script, built from `widget/` with esbuild (one IIFE, minified), and its texts.
 * English is in the script; the other languages are files named by their content, which the
 * script knows (esbuild's `define`), so they can be cached for good. Built from source when first
 * asked for: a checkout serves them with no build step, never older than their source.
 */
async function buildAssets(): Promise<WidgetAssets> {
  const texts = new Map<string, WidgetAsset>();
  const files: Record<string, string> = {};
  const textDir = new URL('texts/', SOURCE);
  for (const name of (await readdir(textDir)).filter((file) => file.endsWith('.json')).sort()) {
    // Minified JSON, parsed first so a broken file stops the build here.
    const body = Buffer.from(JSON.stringify(JSON.parse(await readFile(new URL(name, textDir), 'utf8'))));
    const file = `${name.slice(0, -'.json'.length)}.${hashOf(body)}.json`;
    files[name.slice(0, -'.json'.length)] = file;
    texts.set(file, await asset(body));
  }
  const result = await build({
    entryPoints: [fileURLToPath(new URL('slotwise-booking.ts', SOURCE))],
    bundle: true,
    minify: true,
    format: 'iife',
    // The workspace's SDK from its TypeScript source, not a build of it that may lag.
    conditions: ['slotwise-source'],
    target: TARGETS,
    charset: 'utf8',
    legalComments: 'none',
    define: { SLOTWISE_TEXT_FILES: JSON.stringify(files) },
    write: false,
    logLevel: 'silent',
  });
  return { script: await asset(Buffer.from(result.outputFiles[0]!.contents)), texts };
}

let assets: Promise<WidgetAssets> | undefined;

/** The one build of this process; a failed build is tried again on the next request. */
export function widgetAssets(): Promise<WidgetAssets> {
  assets ??= buildAssets().catch((error) => {
    assets = undefined;
    throw error;
  });
  return assets;
}
