import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

let temp: TempDatabase;
let service: ServiceProcess | undefined;
beforeEach(async () => {
  temp = await tempDatabase();
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
  await temp.remove();
});

/** The URL the service logged for its metrics listener. */
const metricsUrlOf = (s: ServiceProcess): string => {
  const url = /"url":"(http:\/\/[^"]+\/metrics)".*"msg":"metrics listening"/.exec(s.stdout())?.[1];
  if (url === undefined) throw new Error(`no metrics listener in the log:\n${s.stdout()}`);
  return url;
};

describe('npm start', () => {
  it('serves GET /metrics on the API port by default', async () => {
    service = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' });
    expect((await fetch(`${service.url}/livez`)).status).toBe(200);
    const response = await fetch(`${service.url}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(
      /^petstore_http_request_duration_seconds_count\{method="GET",route="\/livez",status="200"\} 1$/m,
    );
  });

  it('moves /metrics to a listener of its own with PETSTORE_METRICS_PORT, and answers 404 for it on the API port', async () => {
    service = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production', PETSTORE_METRICS_PORT: '0' });
    const onApi = await fetch(`${service.url}/metrics`);
    expect(onApi.status).toBe(404);
    expect(await onApi.json()).toEqual({ code: 'not_found', message: expect.any(String), status: 404 });
    const metricsUrl = metricsUrlOf(service);
    expect(new URL(metricsUrl).port).not.toBe(new URL(service.url).port);
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    // The API's requests are measured there, the 404 above among them, under route="unmatched".
    expect(await response.text()).toMatch(
      /^petstore_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1$/m,
    );
    expect((await fetch(new URL('/v1/inventory', metricsUrl))).status).toBe(404);
  });

  it('keeps no metrics with PETSTORE_METRICS=off', async () => {
    service = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production', PETSTORE_METRICS: 'off' });
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
  });
});
