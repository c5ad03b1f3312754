import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

let temp: TempDatabase;
let service: ServiceProcess | undefined;
beforeEach(async () => {
  temp = await tempDatabase();
});
afterEach(async () => {
  if (service !== undefined && service.child.exitCode === null) await service.stop();
  service = undefined;
  await temp.remove();
});

/** Sends `count` requests for /livez, `concurrency` at a time, and answers how many got a 200. */
async function load(url: string, count: number, concurrency: number): Promise<number> {
  let sent = 0;
  let answered = 0;
  const worker = async (): Promise<void> => {
    while (sent < count) {
      sent += 1;
      const response = await fetch(`${url}/livez`);
      await response.text();
      if (response.status === 200) answered += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answered;
}

const requestLines = (stdout: string): number =>
  stdout.split('\n').filter((line) => line.includes('"msg":"request"')).length;

describe.each(['SIGTERM', 'SIGHUP'] as const)('%s', (signal) => {
  it('drains: every answered request has its log line, even with the log reader stalled, then exit 0', async () => {
    service = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' });
    // Stop reading the log while the requests run: the pipe fills and the service's log writes wait,
    // as they do when a log shipper falls behind. Every line must still come out at the end.
    service.child.stdout.pause();
    const answered = await load(service.url, 3_000, 20);
    service.child.kill(signal);
    service.child.stdout.resume();
    expect(await service.exited).toBe(0);
    const stdout = service.stdout();
    expect(requestLines(stdout)).toBe(answered);
    expect(stdout).toContain(`"signal":"${signal}"`);
    expect(stdout.trimEnd().split('\n').at(-1)).toContain('"msg":"stopped"');
  }, 60_000);
});
