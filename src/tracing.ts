/**
 * Loaded with `node --import` before the service (`npm start` does), so that OpenTelemetry patches
 * http, pg and ioredis before the service imports them. Without OTEL_EXPORTER_OTLP_ENDPOINT it does
 * nothing else: tracing off costs this branch, and needs no OpenTelemetry package. With it, packages
 * missing stop the start with one line naming the npm install that adds them.
 */
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  try {
    const { startTracingIfConfigured } = await import('./composition/tracing.js');
    await startTracingIfConfigured(process.env);
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

export {};
