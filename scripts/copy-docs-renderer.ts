/**
 * Copies the API reference page's renderer, the standalone browser bundle of @scalar/api-reference (a
 * devDependency), into dist/docs/scalar.js, with a line naming its package, version and licence. The
 * service serves that file (src/adapters/http/docs-page.ts), so the package needs neither Scalar nor its
 * 150 MB of dependencies at run time. Part of `npm run build`.
 * Usage: node --import tsx scripts/copy-docs-renderer.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');

/** Where the build writes the renderer, as the service looks for it. */
export const DOCS_RENDERER = join(root, 'dist', 'docs', 'scalar.js');

/** Writes dist/docs/scalar.js; resolves to its size in bytes. */
export function copyDocsRenderer(): number {
  // The package exports neither its manifest nor the bundle: both are found beside its entry, dist/index.js.
  const entry = pathToFileURL(createRequire(join(root, 'package.json')).resolve('@scalar/api-reference'));
  const manifest = JSON.parse(readFileSync(new URL('../package.json', entry), 'utf8')) as {
    version: string;
    license: string;
  };
  const bundle = readFileSync(new URL('./browser/standalone.js', entry));
  const notice = `/*! @scalar/api-reference ${manifest.version}, ${manifest.license} License, https://github.com/scalar/scalar */\n`;
  mkdirSync(dirname(DOCS_RENDERER), { recursive: true });
  writeFileSync(DOCS_RENDERER, Buffer.concat([Buffer.from(notice), bundle]));
  return notice.length + bundle.length;
}

if (import.meta.filename === process.argv[1]) {
  const bytes = copyDocsRenderer();
  // On stderr: npm pack runs the build (prepack) and its --json answer is stdout, which must stay JSON.
  process.stderr.write(`wrote dist/docs/scalar.js (${bytes} bytes)\n`);
}
