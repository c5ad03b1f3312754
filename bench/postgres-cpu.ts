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

/**
 * CPU seconds, user and system, of a PostgreSQL server's running processes: its postmaster and every
 * process it started (Linux only). A backend that has exited is no longer counted: read it while the
 * sessions measured are open.
 */
export function serverCpuSeconds(postmaster: number): number {
  const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map(Number);
  return [postmaster, ...children].reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
}
