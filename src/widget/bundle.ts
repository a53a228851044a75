import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { build } from 'esbuild';

export interface WidgetBundle {
  js: Buffer;
  gzipped: Buffer;
  etag: string;
}

const ENTRY = fileURLToPath(new URL('../../widget/slotwise-booking.ts', import.meta.url));

/** Browsers the bundle is written for: those with custom elements, shadow DOM and `Intl` in full. */
const TARGETS = ['chrome109', 'firefox115', 'safari15.4', 'edge109'];

/**
 * The widget's script, built from `widget/` with esbuild (one IIFE, minified) and gzipped once.
 * Built from source when first asked for, so a checkout serves it with no build step and it can
 * never be older than its source.
 */
async function buildBundle(): Promise<WidgetBundle> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: TARGETS,
    charset: 'utf8',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const js = Buffer.from(result.outputFiles[0]!.contents);
  return {
    js,
    gzipped: await promisify(gzip)(js, { level: 9 }),
    etag: `"${createHash('sha256').update(js).digest('base64url').slice(0, 22)}"`,
  };
}

let bundle: Promise<WidgetBundle> | undefined;

/** The one bundle of this process; a failed build is retried on the next request. */
export function widgetBundle(): Promise<WidgetBundle> {
  bundle ??= buildBundle().catch((error) => {
    bundle = undefined;
    throw error;
  });
  return bundle;
}
