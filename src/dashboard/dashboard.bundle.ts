import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BROWSER_TARGETS, type BuiltAsset, buildOnce, builtAsset } from '../platform/browser-assets.ts';

export interface DashboardAssets {
  /** Every built file by its path under `/staff/`: `app.js`, `app.css`, `chunks/<name>-<hash>.js`. */
  files: Map<string, BuiltAsset>;
  /** What a first visit loads: the entry, its styles, the first screen, and the modules they import. */
  initial: string[];
}

/** The dashboard's sources, which the image ships beside the server's (Dockerfile, .dockerignore). */
const SOURCE = fileURLToPath(new URL('../../dashboard/', import.meta.url));
/** The repository: metafile paths are relative to it. */
const ROOT = resolve(SOURCE, '..');
/** The screen the dashboard opens on, part of a first visit's load. */
const FIRST_SCREEN = 'dashboard/today/today-screen.tsx';
/** Where the files would go: esbuild writes nothing (`write: false`), their paths are relative to it. */
const OUT = resolve(ROOT, 'staff');
const underOut = (path: string) => resolve(ROOT, path).slice(OUT.length + 1);

/**
 * The staff dashboard built from `dashboard/` with esbuild: ES modules, split so that each screen
 * and each language but English is a chunk loaded when first needed, the chunks named by their
 * content (cached for good), the entry `app.js` and `app.css` revalidated by ETag.
 */
async function buildDashboard(): Promise<DashboardAssets> {
  const result = await build({
    entryPoints: [
      { in: resolve(SOURCE, 'main.tsx'), out: 'app' },
      { in: resolve(SOURCE, 'styles.css'), out: 'app' },
    ],
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    outdir: OUT,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // The workspace's SDK from its TypeScript source, not a build of it that may lag.
    conditions: ['slotwise-source'],
    target: BROWSER_TARGETS,
    charset: 'utf8',
    legalComments: 'none',
    metafile: true,
    absWorkingDir: ROOT,
    write: false,
    logLevel: 'silent',
  });
  const files = new Map<string, BuiltAsset>();
  for (const output of result.outputFiles) {
    files.set(output.path.slice(OUT.length + 1), await builtAsset(Buffer.from(output.contents)));
  }
  const outputs = new Map(
    Object.entries(result.metafile.outputs).map(([path, output]) => [underOut(path), output]),
  );
  const initial = new Set<string>();
  const visit = (file: string) => {
    if (initial.has(file)) return;
    initial.add(file);
    for (const imported of outputs.get(file)?.imports ?? []) {
      if (imported.kind === 'import-statement') visit(underOut(imported.path));
    }
  };
  visit('app.js');
  visit('app.css');
  const firstScreen = [...outputs].find(([, output]) => output.entryPoint === FIRST_SCREEN);
  if (firstScreen) visit(firstScreen[0]);
  return { files, initial: [...initial] };
}

/** The one build of this process. */
export const dashboardAssets = buildOnce(buildDashboard);
