import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
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
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces: count the fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
