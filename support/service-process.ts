import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** The service running in a child process, as `npm start` runs it. */
export interface ServiceProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Base URL with the port actually bound, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<number | null>;
}

/** The environment of a child: this one's, less what would change the service's behaviour. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { REDIS_URL: _r, REDIS_CLUSTER_NODES: _c, PETSTORE_ENV: _e, PORT: _p, HOST: _h, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'info', ...env };
}

/**
 * Starts `src/main.ts serve` on a free port (PORT=0) and resolves once it logs that it listens.
 * Fails, with what the process printed, if it exits first or takes longer than `timeoutMs`.
 */
export function startService(env: Record<string, string>, timeoutMs = 20_000): Promise<ServiceProcess> {
  // As npm start runs it: src/tracing.ts first, which starts OpenTelemetry when the environment asks.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', join(root, 'src/tracing.ts'), join(root, 'src/main.ts'), 'serve'],
    {
      cwd: root,
      env: childEnv({ HOST: '127.0.0.1', PORT: '0', ...env }),
    },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (t: string) => {
    err += t;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not start within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} before listening\nstdout: ${out}\nstderr: ${err}`));
    });
    child.stdout.on('data', (t: string) => {
      out += t;
      const match = /"url":"(http:\/\/[^"]+)\/v1".*"msg":"listening"/.exec(out);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve({
        child,
        url: match[1],
        stdout: () => out,
        stderr: () => err,
        exited,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

/** What one run of the program printed, and how it exited. */
export interface ProgramRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real program (`src/main.ts <argv>`) in a process of its own, as an operator runs the admin CLI. */
export function runPetstore(env: Record<string, string>, ...argv: string[]): Promise<ProgramRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts'), ...argv], {
    cwd: root,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Issues an enterprise key without practical limits in the database at `dbPath`, as an operator would with the CLI. */
export async function issueUnlimitedKey(dbPath: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'src/main.ts'),
      'keys',
      'create',
      '--plan',
      'enterprise',
      '--per-minute',
      '1000000',
      '--per-day',
      '1000000',
    ],
    { env: childEnv({ PETSTORE_DB: dbPath, PETSTORE_ENV: 'production' }) },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => {
    out += t;
  });
  child.stderr.setEncoding('utf8').on('data', (t: string) => {
    err += t;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`keys create exited with ${code}: ${err}`);
  return out.trim();
}
