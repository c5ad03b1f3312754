import autocannon from 'autocannon';
import { cpuSeconds, type ServerProcess } from './server-process.js';

/** One request a load sends. */
export interface LoadRequest {
  readonly method: 'GET' | 'PATCH' | 'POST';
  readonly path: string;
  readonly body?: string;
}

/** What one load run measured. */
export interface LoadRun {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** CPU time the server used during the run, user and system, divided by the requests answered. */
  readonly cpuUsPerRequest: number | undefined;
}

export const CONNECTIONS = 50;

/**
 * Runs autocannon against `origin` for `seconds` with CONNECTIONS connections, each cycling through
 * `requests` from its own starting point, so that concurrent requests spread over the list rather than
 * move through it in step. The requests are built once, before the run, so the load generator spends
 * nothing per request on building them. Throws when any answer is not 2xx or any request fails: a
 * rate of errors is no figure.
 */
async function autocannonRun(
  origin: string,
  requests: readonly LoadRequest[],
  headers: Readonly<Record<string, string>>,
  seconds: number,
): Promise<Omit<LoadRun, 'cpuUsPerRequest'>> {
  const built = requests.map((r) => ({
    method: r.method,
    path: r.path,
    headers: r.body === undefined ? { ...headers } : { ...headers, 'content-type': 'application/json' },
    ...(r.body === undefined ? {} : { body: r.body }),
  }));
  let client = 0;
  const step = Math.max(1, Math.floor(built.length / CONNECTIONS));
  const result = await autocannon({
    url: origin,
    connections: CONNECTIONS,
    duration: seconds,
    requests: built,
    setupClient: (c) => {
      const start = (client * step) % built.length;
      client += 1;
      c.setRequests([...built.slice(start), ...built.slice(0, start)]);
    },
  });
  assertAllAnswered(result, `${requests[0]?.method} ${origin}${requests[0]?.path}`);
  return {
    rps: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
  };
}

/** Runs the load on `server` (see autocannonRun) and reads the CPU time the server spent on it. */
export function runLoad(
  server: ServerProcess,
  requests: readonly LoadRequest[],
  headers: Readonly<Record<string, string>>,
  seconds: number,
): Promise<LoadRun> {
  return withServerCpu(server, () => autocannonRun(server.origin, requests, headers, seconds));
}

/** Runs `load` and reads the CPU time `server` spent on it, a request. */
export async function withServerCpu(
  server: ServerProcess,
  load: () => Promise<Omit<LoadRun, 'cpuUsPerRequest'>>,
): Promise<LoadRun> {
  const before = cpuSeconds(server.pid);
  const run = await load();
  const after = cpuSeconds(server.pid);
  const cpu = before === undefined || after === undefined ? undefined : ((after - before) * 1e6) / run.requests;
  return { ...run, cpuUsPerRequest: cpu };
}

/** Throws when any answer of a run was not 2xx or any request failed: a rate of errors is no figure. */
export function assertAllAnswered(result: autocannon.Result, what: string): void {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || result.requests.total === 0) {
    const statuses = JSON.stringify(result.statusCodeStats ?? {});
    throw new Error(
      `${what}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ` +
        `${result.timeouts} timeouts in ${result.requests.total} requests (status codes ${statuses})`,
    );
  }
}
