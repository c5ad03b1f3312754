#!/usr/bin/env node
/**
 * The composition root's entry, and the package's `petstore` command: `petstore serve` (npm start)
 * runs the HTTP service; any other arguments run the admin CLI (`petstore keys create --plan free`).
 * It imports the server only once it runs, so that a missing package is reported as one line (with
 * the npm install that fixes it), and so that tracing, when configured, starts before what it patches.
 */
try {
  // npm start loads it with node --import already; `npx petstore serve` has only this line to do it.
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) await import('./tracing.js');
  const { runPetstore } = await import('./composition/index.js');
  await runPetstore(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

export {};
