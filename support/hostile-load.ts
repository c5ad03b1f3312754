import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../src/application/use-cases/issue-api-key.js';
import { aPet } from '../src/testing/index.js';
import { finalResponse, type RawHead } from './listening-app.js';
import { startService } from './service-process.js';
import { tempDatabase } from './temp-database.js';

/** The service as `npm start` runs it in production over SQLite, with pets and a key, for attacks. */
export interface AttackTarget {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** An enterprise key without practical limits. */
  readonly key: string;
  stop(): Promise<void>;
}

/** Starts the service over a fresh SQLite file holding `pets` pets (ids 1..pets, 5 of each on hand: the mothers' default). */
export async function startAttackTarget(pets: number, env: Record<string, string> = {}): Promise<AttackTarget> {
  const temp = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  let key: string;
  try {
    await storage.pets.addAll(Array.from({ length: pets }, (_, i) => aPet(i + 1)));
    const crypto = new NodeKeyCrypto();
    const issued = await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({
      plan: 'enterprise',
      limits: { perMinute: 1_000_000, perDay: 10_000_000 },
    });
    key = issued.key;
  } finally {
    await storage.close();
  }
  const service = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production', ...env });
  return {
    url: service.url,
    port: Number(new URL(service.url).port),
    pid: service.child.pid as number,
    key,
    stop: async () => {
      await service.stop();
      await temp.remove();
    },
  };
}

/** Samples `sample` every `everyMs` until `stop` settles, and resolves to the samples. */
export async function sampleUntil<T>(sample: () => T, stop: Promise<unknown>, everyMs = 250): Promise<T[]> {
  const samples: T[] = [];
  let stopped = false;
  void stop.finally(() => {
    stopped = true;
  });
  while (!stopped) {
    samples.push(sample());
    await delay(everyMs);
  }
  return samples;
}

/** How many file descriptors process `pid` holds open (sockets, files, pipes). */
export const openDescriptors = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** The resident memory of process `pid`, in bytes. */
export function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.match(/(\d+)/)?.[1] ?? Number.NaN) * 1024;
}

/** A connection to `port` on 127.0.0.1 from the loopback address `from` (127.0.0.2, ...): another client. */
export function connectFrom(port: number, from: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    // A connection the server refuses is closed at once: the caller sees it closed, nothing more.
    socket.on('error', () => {});
    socket.once('connect', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

/** One timed request of the well-behaved client. */
export interface ProbeResult {
  /** When it was sent, in ms since the probing started. */
  readonly atMs: number;
  /** How long its answer took; `Infinity` when none came within the timeout. */
  readonly ms: number;
  /** Its status, or 0 when it failed or timed out. */
  readonly status: number;
}

/**
 * Sends `GET path` with `key` every `everyMs` from 127.0.0.1 (one kept-alive connection, as a client
 * library would) until `stop` settles, each with `timeoutMs` to answer, and resolves to every result.
 */
export async function probeUntil(
  url: string,
  key: string,
  path: string,
  stop: Promise<unknown>,
  options: { readonly everyMs?: number; readonly timeoutMs?: number } = {},
): Promise<ProbeResult[]> {
  const everyMs = options.everyMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 1_000;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const results: ProbeResult[] = [];
  let stopped = false;
  void stop.finally(() => {
    stopped = true;
  });
  const startedAt = performance.now();
  try {
    while (!stopped) {
      const sentAt = performance.now();
      const status = await new Promise<number>((resolve) => {
        const req = request(`${url}${path}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        });
        req.setTimeout(timeoutMs, () => {
          req.destroy();
          resolve(0);
        });
        req.once('error', () => resolve(0));
        req.end();
      });
      const ms = performance.now() - sentAt;
      results.push({ atMs: sentAt - startedAt, ms: status === 0 ? Number.POSITIVE_INFINITY : ms, status });
      await delay(Math.max(0, everyMs - ms));
    }
  } finally {
    agent.destroy();
  }
  return results;
}

/**
 * Keeps `connections` connections from `from` busy for `durationMs`, each pipelining `request` in bursts
 * of 64, a burst a turn of the event loop for as long as the socket takes them, and never reading an
 * answer; a connection the server closes is opened again. Resolves once every connection is destroyed.
 */
export async function pipelineWithoutReading(
  port: number,
  from: string,
  request: string,
  connections: number,
  durationMs: number,
): Promise<void> {
  const deadline = performance.now() + durationMs;
  const burst = Buffer.from(request.repeat(64));
  const flood = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const socket = await connectFrom(port, from);
      if (socket.destroyed) {
        await delay(10);
        continue;
      }
      // Never read: the answers pile up in the kernel's buffers, then in the server's.
      socket.pause();
      await new Promise<void>((resolve) => {
        // One burst a turn, not a loop while the socket takes more: a peer that reads as fast as it is
        // written to (nginx) would keep such a loop, and this process's event loop, busy for ever.
        const pump = (): void => {
          if (performance.now() >= deadline) socket.destroy();
          else if (!socket.destroyed && socket.write(burst)) setImmediate(pump);
        };
        socket.on('drain', pump);
        // A server that stops reading never drains the socket: the deadline ends it all the same.
        const end = setTimeout(() => socket.destroy(), Math.max(0, deadline - performance.now()));
        socket.once('close', () => {
          clearTimeout(end);
          resolve();
        });
        pump();
      });
    }
  };
  await Promise.all(Array.from({ length: connections }, flood));
}

/** The complete responses in `raw`, in order, each cut at its Content-Length. */
function responsesIn(raw: string): RawHead[] {
  const answers: RawHead[] = [];
  let rest = raw;
  while (rest.includes('\r\n\r\n')) {
    const head = finalResponse(rest);
    const length = Number(head.headers.get('content-length') ?? 0);
    if (Buffer.byteLength(head.body) < length) break;
    answers.push({ ...head, body: head.body.slice(0, length) });
    rest = head.body.slice(length);
  }
  return answers;
}

/**
 * On one connection from `from`, `rounds` times: pipelines a PATCH of pet 2 to `first + round` and a GET
 * of it in one write, and reads both answers. Resolves to the quantity each GET answered; throws when an
 * answer is not a 200 or does not come within 5 s.
 */
export async function pipelinePatchThenGet(
  port: number,
  from: string,
  key: string,
  rounds: number,
  first: number,
): Promise<number[]> {
  const socket = await connectFrom(port, from);
  let raw = '';
  socket.setEncoding('utf8').on('data', (text: string) => {
    raw += text;
  });
  const auth = `Authorization: Bearer ${key}`;
  const seen: number[] = [];
  try {
    for (let round = 1; round <= rounds; round += 1) {
      raw = '';
      const body = JSON.stringify({ quantity: first + round });
      socket.write(
        `PATCH /v1/inventory/2 HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\n\r\n${body}GET /v1/inventory/2 HTTP/1.1\r\nHost: x\r\n${auth}\r\n\r\n`,
      );
      const deadline = performance.now() + 5_000;
      while (responsesIn(raw).length < 2) {
        if (performance.now() > deadline || socket.destroyed) throw new Error(`no two answers: ${raw.slice(0, 300)}`);
        await delay(5);
      }
      const [patched, read] = responsesIn(raw);
      if (patched?.status !== 200 || read?.status !== 200) throw new Error(`not two 200s: ${raw.slice(0, 300)}`);
      seen.push(JSON.parse(read.body).quantity);
    }
  } finally {
    socket.destroy();
  }
  return seen;
}

/** The probes that got no 200 within `ms`. */
export const lateProbes = (results: readonly ProbeResult[], ms = 1_000): ProbeResult[] =>
  results.filter((r) => r.status !== 200 || r.ms > ms);
