import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './redis-server.js';

/** nginx of one test file, run with the repository's deploy/nginx configuration. */
export interface NginxServer {
  /** `http://127.0.0.1:port` */
  readonly url: string;
  /** Everything nginx logged (deploy/nginx/nginx.conf's access log format), one line a request. */
  accessLog(): Promise<string>;
  errorLog(): Promise<string>;
  /** Stops nginx gracefully (SIGQUIT), SIGKILL if it lingers, and removes its folder. */
  stop(): Promise<void>;
}

const DEPLOY = join(import.meta.dirname, '..', 'deploy', 'nginx');
const BIN = process.env.PETSTORE_NGINX ?? '/usr/sbin/nginx';
const INSTALL = 'install it (Debian/Ubuntu: apt-get install -y nginx) or set PETSTORE_NGINX to its path';
const READY_WITHIN_MS = 10_000;

const isCi = (): boolean => process.env.CI === 'true' || process.env.CI === '1';

/**
 * Whether the nginx suites can run. Without nginx they are skipped with a warning, except under CI=true,
 * where a missing nginx throws: CI must never pass by skipping them.
 */
export function nginxAvailable(): boolean {
  const probe = spawnSync(BIN, ['-v'], { stdio: 'ignore' });
  if (probe.error === undefined && probe.status === 0) return true;
  if (isCi()) throw new Error(`nginx is not at ${BIN} and CI=true needs the nginx suites: ${INSTALL}`);
  console.warn(`nginx suites skipped: no nginx at ${BIN}; ${INSTALL}.`);
  return false;
}

async function accepts(port: number): Promise<boolean> {
  const socket = createConnection({ port, host: '127.0.0.1' });
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

/**
 * The deployment's upstream list for these instances: the shipped upstreams.conf's first `server`
 * line, with its passive health-check parameters, once per address.
 */
async function upstreamsFor(addresses: readonly string[]): Promise<string> {
  const shipped = await readFile(join(DEPLOY, 'upstreams.conf'), 'utf8');
  const line = shipped.split('\n').find((l) => l.startsWith('server '));
  if (line === undefined) throw new Error('deploy/nginx/upstreams.conf has no server line');
  return `${addresses.map((address) => line.replace(/^server \S+/, `server ${address}`)).join('\n')}\n`;
}

/**
 * Starts nginx (not as a daemon) on a free loopback port in front of `upstreams` (`127.0.0.1:port`
 * each), with deploy/nginx/nginx.conf as shipped: only its two included files are written for the
 * test, as a deployment writes them. Its prefix (logs, pid, temp files) is a temporary folder.
 */
export async function startNginx(upstreams: readonly string[]): Promise<NginxServer> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-nginx-'));
  // As root, nginx's workers run as www-data (the `user` line) and must reach the temp folders.
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'logs'));
  await mkdir(join(dir, 'temp'));
  await mkdir(join(dir, 'conf'));
  await copyFile(join(DEPLOY, 'nginx.conf'), join(dir, 'conf', 'nginx.conf'));
  await writeFile(join(dir, 'conf', 'upstreams.conf'), await upstreamsFor(upstreams));
  const port = await freePort();
  await writeFile(join(dir, 'conf', 'listen.conf'), `listen 127.0.0.1:${port};\n`);

  const child: ChildProcess = spawn(BIN, ['-p', dir, '-c', join(dir, 'conf', 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += String(chunk);
  });
  const onExit = (): void => {
    child.kill('SIGKILL');
  };
  process.on('exit', onExit);
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const stop = async (): Promise<void> => {
    if (alive()) {
      const exited = once(child, 'exit');
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    process.off('exit', onExit);
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_WITHIN_MS;
  while (!(await accepts(port))) {
    if (!alive() || Date.now() > deadline) {
      const log = await readFile(join(dir, 'logs', 'error.log'), 'utf8').catch(() => '');
      await stop();
      throw new Error(`nginx did not start on port ${port}:\n${output}\n${log}`);
    }
    await delay(20);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    accessLog: () => readFile(join(dir, 'logs', 'access.log'), 'utf8'),
    errorLog: () => readFile(join(dir, 'logs', 'error.log'), 'utf8'),
    stop,
  };
}
