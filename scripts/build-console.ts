/**
 * Bundles the stock console (src/console) into dist/console/console.js and console.css with esbuild:
 * the browser code, lit, uPlot and the typed client in one minified script, the styles in one sheet.
 * The service serves them from memory (src/adapters/http/console-routes.ts). Part of `npm run build`.
 * Usage: node --import tsx scripts/build-console.ts
 */
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');

/** Builds the bundle; resolves to the files written and their sizes. */
export async function buildConsole(): Promise<Record<string, number>> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: { console: 'src/console/main.ts', 'console-style': 'src/console/console.css' },
    outdir: 'dist/console',
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022'],
    platform: 'browser',
    legalComments: 'eof',
    metafile: true,
    logLevel: 'warning',
  });
  return Object.fromEntries(Object.entries(result.metafile.outputs).map(([path, { bytes }]) => [path, bytes]));
}

if (import.meta.filename === process.argv[1]) {
  const written = await buildConsole();
  // On stderr: npm pack runs the build (prepack) and its --json answer is stdout, which must stay JSON.
  for (const [path, bytes] of Object.entries(written)) process.stderr.write(`wrote ${path} (${bytes} bytes)\n`);
}
