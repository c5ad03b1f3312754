import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

/** What ran the benchmark, for the README: figures mean little without it. */
export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly node: string;
  readonly redis: string;
  readonly autocannon: string;
  readonly commit: string;
  readonly loadBefore: readonly number[];
}

const ROOT = join(import.meta.dirname, '..');

function output(command: string, args: readonly string[]): string | undefined {
  const run = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

export function describeMachine(): Machine {
  const head = output('git', ['rev-parse', '--short', 'HEAD']);
  const dirty = output('git', ['status', '--porcelain', '--untracked-files=no']);
  const version = createRequire(import.meta.url)('autocannon/package.json') as { version: string };
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: totalmem() / 2 ** 30,
    kernel: `${process.platform} ${release()}`,
    node: process.version,
    redis: output('redis-server', ['--version']) ?? 'redis-server not found',
    autocannon: version.version,
    commit: head === undefined ? 'unknown' : `${head}${dirty ? ' with uncommitted changes' : ''}`,
    loadBefore: loadavg(),
  };
}

/** The 1-, 5- and 15-minute load averages, e.g. `1.9, 2.6, 2.7`. */
export const loadAverages = (load: readonly number[]): string => load.map((l) => l.toFixed(1)).join(', ');
