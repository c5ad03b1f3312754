import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { cpuSeconds } from './server-process.js';

/** The pid of the postmaster of a connected client's server: the parent of the client's backend. */
export async function postmasterOf(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const status = readFileSync(`/proc/${rows[0]?.pid}/status`, 'utf8');
  return Number(/PPid:\s+(\d+)/.exec(status)?.[1]);
}

/** The CPU seconds of the children `pid` has waited for once they exited (cutime + cstime of /proc/<pid>/stat). */
function exitedChildrenSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/** Clock ticks a second (`getconf CLK_TCK`), 100 on Linux. */
const CLOCK_TICKS = 100;

/**
 * CPU seconds, user and system, a PostgreSQL server has used so far (Linux only): its postmaster, every
 * process it started that still runs, and those that have exited (the postmaster waits for each, and
 * the kernel adds its time to the postmaster's children's). A backend that closes between two readings
 * (a pool's idle connection) then still counts, and no figure runs backwards.
 */
export function serverCpuSeconds(postmaster: number): number {
  const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map(Number);
  const running = [postmaster, ...children].reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  return running + exitedChildrenSeconds(postmaster);
}
