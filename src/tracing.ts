/**
 * Loaded with `node --import` before the service (`npm start` does), so that OpenTelemetry patches
 * http, pg and ioredis before the service imports them. Without OTEL_EXPORTER_OTLP_ENDPOINT it does
 * nothing else: tracing off costs this branch.
 */
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const { startTracingIfConfigured } = await import('./composition/tracing.js');
  await startTracingIfConfigured(process.env);
}

export {};
