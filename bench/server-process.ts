import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** A server the benchmark started as a child process: its own event loop, apart from the load generator. */
export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  /** The API's base URL, ending in /v1, with the port actually bound. */
  readonly url: string;
  /** The same without /v1: `http://127.0.0.1:<port>`, what the load generator is pointed at. */
  readonly origin: string;
  /** Everything the process wrote so far (stdout and stderr go to one file, not through this process). */
  log(): string;
  /** SIGTERM, then SIGKILL if it has not exited within the bound; resolves once it has exited. */
  stop(): Promise<void>;
}

const ROOT = join(import.meta.dirname, '..');
const READY_WITHIN_MS = 30_000;
const STOP_WITHIN_MS = 15_000;
const LISTENING = /"msg":"listening"/;
const URL_FIELD = /"url":"(http:\/\/[^"]+\/v1)"/;

const started = new Set<ChildProcess>();
// Should the benchmark die first, none of its servers may outlive it.
process.on('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});

const alive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

async function end(child: ChildProcess): Promise<void> {
  if (alive(child)) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WITHIN_MS);
    await exited;
    clearTimeout(timer);
  }
  started.delete(child);
}

/**
 * Runs `node <args>` with `env` and resolves once it logs a JSON line with msg "listening" and a "url"
 * ending in /v1. Its output goes straight to `logFile`, so that a server logging every request costs the
 * benchmark process nothing. Throws with the output if it exits first or is not ready in time.
 */
export async function startServer(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
): Promise<ServerProcess> {
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  started.add(child);
  const log = (): string => readFileSync(logFile, 'utf8');
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    const text = log();
    const line = text.split('\n').find((l) => LISTENING.test(l));
    const url = line === undefined ? undefined : URL_FIELD.exec(line)?.[1];
    if (url !== undefined && child.pid !== undefined) {
      return { name, pid: child.pid, url, origin: url.slice(0, -'/v1'.length), log, stop: () => end(child) };
    }
    if (!alive(child)) break;
    await delay(50);
  }
  await end(child);
  throw new Error(`${name} did not start listening within ${READY_WITHIN_MS} ms; it wrote:\n${log()}`);
}

/** What `startTogether` answers for each start: a server, or undefined where none was asked. */
type Started<T> = { [K in keyof T]: T[K] extends Promise<ServerProcess> ? ServerProcess : ServerProcess | undefined };

/**
 * Waits for servers started at once (undefined: none asked there), puts each that started in `servers`
 * so that it is stopped with the rest, then throws the first failure, if any. Two builds compared are
 * started so, together: a service started first and left idle while another starts spent up to a few
 * per cent more CPU a request, whichever build it was (bench/notes.md).
 */
export async function startTogether<const T extends readonly (Promise<ServerProcess> | undefined)[]>(
  servers: ServerProcess[],
  ...starts: T
): Promise<Started<T>> {
  const settled = await Promise.allSettled(starts);
  for (const start of settled) if (start.status === 'fulfilled' && start.value !== undefined) servers.push(start.value);
  const failed = settled.find((start) => start.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((start) => (start.status === 'fulfilled' ? start.value : undefined)) as Started<T>;
}

/** Stops every server given, in parallel. */
export async function stopAll(servers: readonly (ServerProcess | undefined)[]): Promise<void> {
  await Promise.all(servers.map((s) => s?.stop()));
}

/** A field of /proc/<pid>/status in bytes (VmHWM: peak resident set, VmRSS: current), or undefined off Linux. */
export function procStatusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

// Clock ticks a second of /proc/<pid>/stat; 100 on every Linux build in common use.
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * The CPU time, user and system, a process has used so far (/proc/<pid>/stat), or undefined off Linux.
 * Unlike a rate, it does not shrink when other work takes the CPU from the process.
 */
export function cpuSeconds(pid: number): number | undefined {
  try {
    return statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** utime + stime of a /proc stat line: the fields after the command name (which may hold spaces). */
function statTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The CPU clock ticks each thread of `pid` has used so far, by thread id (/proc/<pid>/task, Linux only). */
export function ticksByThread(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ticks.set(tid, statTicks(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ticks;
}

/** A server's CPU µs a request, by thread. */
export interface ThreadSplit {
  /** The process's main thread. */
  readonly loop: number;
  /** Its busiest other thread: the SQLite writer thread, where there is one. */
  readonly busiestOther: number;
  /** The rest: V8's compiler and collector helpers, libuv's pool. */
  readonly rest: number;
}

/** The CPU µs a request of each thread of `pid` between two readings of ticksByThread. */
export function threadSplit(
  pid: number,
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  requests: number,
): ThreadSplit {
  const us = (tid: string): number =>
    (((after.get(tid) ?? 0) - (before.get(tid) ?? 0)) * (1e6 / CLOCK_TICKS)) / requests;
  const others = [...after.keys()].filter((tid) => tid !== String(pid)).map(us);
  const busiestOther = Math.max(0, ...others);
  return { loop: us(String(pid)), busiestOther, rest: others.reduce((sum, x) => sum + x, 0) - busiestOther };
}
