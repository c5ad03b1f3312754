import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { connectFrom } from './hostile-load.js';

/** What a burst of requests got: how many of each status, and the network errors by code. */
export interface BurstOutcome {
  readonly statuses: Readonly<Record<number, number>>;
  /** Requests that got no HTTP answer at all (a reset, a close before the answer). */
  readonly networkErrors: number;
  readonly errorCodes: readonly string[];
}

/** One GET through `agent` from `from`: its status, or the code of the error it met. */
function get(url: string, key: string, from: string, agent: Agent): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { agent, localAddress: from, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
    });
    req.once('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
    req.end();
  });
}

/**
 * A client library's pool of keep-alive connections from the address `from`, as fetch keeps one: it
 * warms `warm` connections with as many GETs at once, then sends `burst` GETs at once, over the warm
 * connections and as many new ones as it takes. Resolves to what the burst got.
 */
export async function keepAliveBurst(
  url: string,
  key: string,
  from: string,
  warm: number,
  burst: number,
): Promise<BurstOutcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  try {
    const warming = await Promise.all(Array.from({ length: warm }, () => get(url, key, from, agent)));
    if (warming.some((status) => status !== 200)) throw new Error(`warming failed: ${JSON.stringify(warming)}`);
    const results = await Promise.all(Array.from({ length: burst }, () => get(url, key, from, agent)));
    const statuses: Record<number, number> = {};
    const errorCodes: string[] = [];
    for (const result of results) {
      if (typeof result === 'number') statuses[result] = (statuses[result] ?? 0) + 1;
      else errorCodes.push(result);
    }
    return { statuses, networkErrors: errorCodes.length, errorCodes };
  } finally {
    agent.destroy();
  }
}

/** One keyed GET of `url` from `from` on a connection of its own: its status, or the code of the network error it met. */
export function getOnce(url: string, key: string, from: string): Promise<number | string> {
  return get(url, key, from, new Agent({ keepAlive: false }));
}

/** Opens `count` connections from `from` that never send a byte, 100 at a time; the caller destroys them. */
export async function silentConnections(port: number, from: string, count: number): Promise<Socket[]> {
  const held: Socket[] = [];
  for (let i = 0; i < count; i += 100) {
    held.push(...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => connectFrom(port, from)))));
  }
  return held;
}
