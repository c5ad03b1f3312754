import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A script run as its own node process (through tsx), talking in lines. */
export interface WorkerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves when the worker prints `line`. */
  waitFor(line: string): Promise<void>;
  /** Every stdout line so far. */
  readonly lines: readonly string[];
  /** Resolves once the process has exited and its output is read, with everything it printed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Starts `script` with `args`, from the repository root so that `--import tsx` resolves. */
export function startWorker(script: string, args: readonly string[], onLine?: (line: string) => void): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: process.cwd() });
  const lines: string[] = [];
  const waiters = new Map<string, () => void>();
  const stdoutClosed = new Promise<void>((resolve) => {
    const reader = createInterface({ input: child.stdout });
    reader.on('line', (line) => {
      lines.push(line);
      waiters.get(line)?.();
      onLine?.(line);
    });
    reader.on('close', resolve);
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr += text;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    lines,
    waitFor: (line) =>
      lines.includes(line)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.set(line, resolve);
            child.on('exit', () => reject(new Error(`the worker exited before printing ${line}: ${stderr}`)));
          }),
    exited: Promise.all([exited, stdoutClosed]).then(([status]) => ({ ...status, stderr })),
  };
}
