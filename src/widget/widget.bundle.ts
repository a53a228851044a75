import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import {
  BROWSER_TARGETS,
  type BuiltAsset,
  buildOnce,
  builtAsset,
  hashOf,
} from '../platform/browser-assets.ts';

export interface WidgetAssets {
  script: BuiltAsset;
  /** The texts of each language but English, by content-hashed file name (`fr.<hash>.json`). */
  texts: Map<string, BuiltAsset>;
}

const SOURCE = new URL('../../widget/', import.meta.url);

/**
 * The widget's script, built from `widget/` with esbuild (one IIFE, minified), and its texts.
 * English is in the script; the other languages are files named by their content, which the
 * script knows (esbuild's `define`), so they can be cached for good. Built from source when first
 * asked for: a checkout serves them with no build step, never older than their source.
 */
async function buildAssets(): Promise<WidgetAssets> {
  const texts = new Map<string, BuiltAsset>();
  const files: Record<string, string> = {};
  const textDir = new URL('texts/', SOURCE);
  for (const name of (await readdir(textDir)).filter((file) => file.endsWith('.json')).sort()) {
    // Minified JSON, parsed first so a broken file stops the build here.
    const body = Buffer.from(JSON.stringify(JSON.parse(await readFile(new URL(name, textDir), 'utf8'))));
    const file = `${name.slice(0, -'.json'.length)}.${hashOf(body)}.json`;
    files[name.slice(0, -'.json'.length)] = file;
    texts.set(file, await builtAsset(body));
  }
  const result = await build({
    entryPoints: [fileURLToPath(new URL('slotwise-booking.ts', SOURCE))],
    bundle: true,
    minify: true,
    format: 'iife',
    // The workspace's SDK from its TypeScript source, not a build of it that may lag.
    conditions: ['slotwise-source'],
    target: BROWSER_TARGETS,
    charset: 'utf8',
    legalComments: 'none',
    define: { SLOTWISE_TEXT_FILES: JSON.stringify(files) },
    write: false,
    logLevel: 'silent',
  });
  return { script: await builtAsset(Buffer.from(result.outputFiles[0]!.contents)), texts };
}

/** The one build of this process. */
export const widgetAssets = buildOnce(buildAssets);
