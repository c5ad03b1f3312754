import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** A real redis-server of one test file: its own port and directory, nothing saved. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, SIGKILL if it lingers) and removes its directory. */
  stop(): Promise<void>;
  /** Kills the server at once, as a crash would; `restart` brings it back. */
  kill(): Promise<void>;
  /** Starts the server again on the same port (killing it first if it runs), empty as after a crash. */
  restart(): Promise<void>;
  /** Whether the server process is alive (it may be paused). */
  running(): boolean;
  /** Freezes the process, so that commands hang as on a stalled server; `resume` thaws it. */
  pause(): void;
  resume(): void;
}

export const INSTALL = 'install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis)';
const READY_WITHIN_MS = 10_000;
const STOP_WITHIN_MS = 5_000;

export const isCi = (): boolean => process.env.CI === 'true' || process.env.CI === '1';

/**
 * Whether the Redis suites can run. Without redis-server they are skipped with a warning, except under
 * CI=true, where a missing server throws: CI must never pass by skipping them.
 */
export function redisServerAvailable(): boolean {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (probe.error === undefined && probe.status === 0) return true;
  if (isCi()) throw new Error(`redis-server is not on PATH and CI=true needs the Redis suites: ${INSTALL}`);
  console.warn(`Redis suites skipped: redis-server is not on PATH; ${INSTALL}.`);
  return false;
}

/**
 * A loopback port that was free a moment ago (the OS picks it): nothing listens there until someone
 * binds it, so it also stands for a server that is down. `startRedisServer` retries if it is taken since.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port was given');
  return address.port;
}

/**
 * Whether the redis-server answering on `port` is the process `pid`, from its `INFO server` over a raw
 * socket: a PONG alone could come from another file's server that took the port first, while ours is
 * still on its way to exiting with "address already in use".
 */
async function answersAs(port: number, pid: number | undefined): Promise<boolean> {
  const socket = createConnection({ port, host: '127.0.0.1' });
  // A server that accepts but never answers must not hang the wait.
  socket.setTimeout(500, () => socket.destroy(new Error('no answer to INFO')));
  try {
    await once(socket, 'connect');
    socket.write('INFO server\r\n');
    let text = '';
    for (;;) {
      const [data] = await once(socket, 'data');
      text += String(data);
      const found = /\r\nprocess_id:(\d+)\r\n/.exec(text);
      if (found !== null) return Number(found[1]) === pid;
      if (text.startsWith('-')) return false;
    }
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

export const alive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/**
 * Runs redis-server on `port` (loopback only, nothing saved), with `extra` settings such as a cluster
 * node's, and waits until it answers on the port, or throws with its output.
 */
export async function launchRedis(port: number, dir: string, extra: readonly string[] = []): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + String(chunk)).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (!alive(child)) throw new Error(`redis-server on port ${port} exited:\n${output}`);
    if (await answersAs(port, child.pid)) return child;
    await delay(20);
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server on port ${port} did not answer within ${READY_WITHIN_MS} ms:\n${output}`);
}

/** Ends `child` with `signal` (SIGKILL if it lingers), even when it is paused; resolves once it exited. */
export async function end(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (!alive(child)) return;
  const exited = once(child, 'exit');
  // A paused process leaves SIGTERM pending until it runs again.
  child.kill('SIGCONT');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WITHIN_MS);
  await exited;
  clearTimeout(timer);
}

/** Starts a redis-server on a free port with a temporary directory; the caller must `stop` it. */
export async function startRedisServer(): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 1; child === undefined; attempt += 1) {
    port = await freePort();
    try {
      child = await launchRedis(port, dir);
    } catch (error) {
      if (attempt === 3) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  let current: ChildProcess = child;
  // If the test process dies first, the server must not outlive it.
  const onExit = (): void => {
    current.kill('SIGKILL');
  };
  process.on('exit', onExit);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await end(current, 'SIGTERM');
      process.off('exit', onExit);
      await rm(dir, { recursive: true, force: true });
    },
    async kill() {
      await end(current, 'SIGKILL');
    },
    async restart() {
      await end(current, 'SIGKILL');
      current = await launchRedis(port, dir);
    },
    running() {
      return alive(current);
    },
    pause() {
      current.kill('SIGSTOP');
    },
    resume() {
      current.kill('SIGCONT');
    },
  };
}
