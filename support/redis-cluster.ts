import { type ChildProcess, execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { alive, end, freePort, INSTALL, isCi, launchRedis } from './redis-server.js';

const run = promisify(execFile);

/** One master of a test cluster: its own port, cluster bus port and directory (with its nodes.conf). */
export interface RedisClusterMaster {
  readonly port: number;
  /** Kills the master at once, as a crash would; `restart` brings it back. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and directory: it rejoins with its id and slots, and no data. */
  restart(): Promise<void>;
  running(): boolean;
}

/** A real Redis Cluster of three masters (no replicas) of one test file, on loopback. */
export interface RedisCluster {
  /** The masters as REDIS_CLUSTER_NODES takes them: `127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`. */
  readonly nodesSetting: string;
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  readonly masters: readonly RedisClusterMaster[];
  /** Resolves once every running master reports `cluster_state:ok`, or throws after `withinMs`. */
  ready(withinMs?: number): Promise<void>;
  /** The master that serves `key`'s hash slot. */
  masterOf(key: string): Promise<RedisClusterMaster>;
  /** Stops every master and removes their directories. */
  stop(): Promise<void>;
}

/**
 * How long a master may be unreachable before the others mark it failed (and, with no replica to take
 * its slots, the cluster answers CLUSTERDOWN). Redis's default is 15 s; tests want an outage they can
 * wait for, yet a loaded machine must not fail a healthy node.
 */
const NODE_TIMEOUT_MS = 2_000;
const READY_WITHIN_MS = 30_000;

/**
 * Whether the Redis Cluster suites can run: they need redis-server and redis-cli. Without them they are
 * skipped with a warning, except under CI=true, where a missing one throws.
 */
export function redisClusterAvailable(): boolean {
  const missing = ['redis-server', 'redis-cli'].filter((tool) => {
    const probe = spawnSync(tool, ['--version'], { stdio: 'ignore' });
    return probe.error !== undefined || probe.status !== 0;
  });
  if (missing.length === 0) return true;
  const what = `${missing.join(' and ')} not on PATH`;
  if (isCi()) throw new Error(`${what} and CI=true needs the Redis Cluster suites: ${INSTALL}`);
  console.warn(`Redis Cluster suites skipped: ${what}; ${INSTALL}.`);
  return false;
}

/** Runs redis-cli against the master on `port` and resolves to what it printed. */
async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 });
  return stdout;
}

/** The slot ranges a master serves, from its own line of CLUSTER NODES (flags include `myself`). */
async function ownRanges(port: number): Promise<[number, number][]> {
  const own = (await cli(port, 'CLUSTER', 'NODES')).split('\n').find((line) => line.split(' ')[2]?.includes('myself'));
  return (own?.split(' ').slice(8) ?? [])
    .filter((range) => /^\d+(-\d+)?$/.test(range))
    .map((range) => {
      const [from, to] = range.split('-').map(Number) as [number, number | undefined];
      return [from, to ?? from];
    });
}

/** One master: its client port, its cluster bus port, its folder and its process. */
interface ClusterNode {
  readonly port: number;
  readonly busPort: number;
  readonly dir: string;
  child: ChildProcess;
}

/**
 * Starts three redis-server masters with cluster mode on, each on two free ports (its client port and
 * its cluster bus port) with a temporary directory, joins them with `redis-cli --cluster create` and
 * waits for `cluster_state:ok`. The caller must `stop` it.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const started: ClusterNode[] = [];
  const onExit = (): void => {
    for (const node of started) node.child.kill('SIGKILL');
  };
  process.on('exit', onExit);
  const settings = (busPort: number, dir: string): string[] => [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, 'nodes.conf'),
    '--cluster-port',
    String(busPort),
    '--cluster-node-timeout',
    String(NODE_TIMEOUT_MS),
  ];
  const stopAll = async (): Promise<void> => {
    for (const node of started) await end(node.child, 'SIGTERM');
    process.off('exit', onExit);
    for (const node of started) await rm(node.dir, { recursive: true, force: true });
  };
  /** A port free a moment ago and none of the nodes' own: two probes can be handed the same port. */
  const unusedPort = async (taken: readonly number[]): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (!taken.includes(port)) return port;
    }
  };
  /** One node, on ports tried afresh (up to 3 times) if another process takes one of them first. */
  const launchNode = async (): Promise<ClusterNode> => {
    for (let attempt = 1; ; attempt += 1) {
      const taken = started.flatMap((node) => [node.port, node.busPort]);
      const port = await unusedPort(taken);
      const busPort = await unusedPort([...taken, port]);
      // A folder of its own each time: a failed attempt may have written its nodes.conf there.
      const dir = await mkdtemp(join(tmpdir(), 'petstore-redis-cluster-'));
      try {
        return { port, busPort, dir, child: await launchRedis(port, dir, settings(busPort, dir)) };
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        if (attempt === 3) throw error;
      }
    }
  };
  try {
    for (let i = 0; i < 3; i += 1) started.push(await launchNode());
    const addresses = started.map((node) => `127.0.0.1:${node.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-yes'], { timeout: 30_000 });
  } catch (error) {
    await stopAll();
    throw error;
  }

  const masters = started.map(
    (node): RedisClusterMaster => ({
      port: node.port,
      async kill() {
        await end(node.child, 'SIGKILL');
      },
      async restart() {
        await end(node.child, 'SIGKILL');
        node.child = await launchRedis(node.port, node.dir, settings(node.busPort, node.dir));
      },
      running: () => alive(node.child),
    }),
  );
  const cluster: RedisCluster = {
    nodesSetting: started.map((node) => `127.0.0.1:${node.port}`).join(','),
    nodes: started.map((node) => ({ host: '127.0.0.1', port: node.port })),
    masters,
    async ready(withinMs = READY_WITHIN_MS) {
      const deadline = Date.now() + withinMs;
      for (;;) {
        const states = await Promise.all(
          masters.filter((m) => m.running()).map((m) => cli(m.port, 'CLUSTER', 'INFO').catch(() => '')),
        );
        if (states.every((info) => info.includes('cluster_state:ok'))) return;
        if (Date.now() > deadline) throw new Error(`the Redis Cluster was not ok within ${withinMs} ms`);
        await delay(100);
      }
    },
    async masterOf(key) {
      const running = masters.find((m) => m.running());
      if (running === undefined) throw new Error('no master of the cluster is running');
      const slot = Number((await cli(running.port, 'CLUSTER', 'KEYSLOT', key)).trim());
      for (const master of masters) {
        const ranges = await ownRanges(master.port);
        if (ranges.some(([from, to]) => slot >= from && slot <= to)) return master;
      }
      throw new Error(`no master serves slot ${slot}`);
    },
    stop: stopAll,
  };
  await cluster.ready();
  return cluster;
}
