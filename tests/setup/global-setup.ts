import { buildConsole } from '../../scripts/build-console.js';
import { copyDocsRenderer } from '../../scripts/copy-docs-renderer.js';

/** Runs once before all test files. Suites that need more (a Redis server, a build) add it here. */
export default async function setup(): Promise<void> {
  // The service serves the stock console from the bundle the build writes (dist/console): every suite
  // that starts the service needs it, and esbuild makes it in well under a second.
  await buildConsole();
  // The same for the API reference page's renderer, which the build copies from a devDependency.
  copyDocsRenderer();
}
