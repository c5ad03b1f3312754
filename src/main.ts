#!/usr/bin/env node
/**
 * The composition root's entry, and the package's `petstore` command: `petstore serve` (npm start)
 * runs the HTTP service; any other arguments run the admin CLI (`petstore keys create --plan free`).
 * Help (`--help`, `serve --help`, `keys create --help`) needs no package. Anything else first checks
 * the packages its configuration needs, so that every missing one is named in one line with the npm
 * install that adds them; then it imports the server, after tracing when configured, so that tracing
 * starts before what it patches.
 */
try {
  const argv = process.argv.slice(2);
  const { petstoreHelp } = await import('./composition/petstore-help.js');
  const help = petstoreHelp(argv);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
  } else {
    const [{ requirePeers }, { servicePeersOf }] = await Promise.all([
      import('./adapters/shared/peer-packages.js'),
      import('./composition/service-peers.js'),
    ]);
    await requirePeers('petstore', servicePeersOf(process.env));
    // npm start loads it with node --import already; `npx petstore serve` has only this line to do it.
    if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) await import('./tracing.js');
    const { runPetstore } = await import('./composition/index.js');
    await runPetstore(argv);
  }
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

export {};
