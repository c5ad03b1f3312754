import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { CommandQueue } from './command-queue.js';
import type { OpenDatabaseOptions } from './open-database.js';
import type { OperationName, ReplyOf, RequestOf } from './store-operations.js';
import {
  CLOSE,
  readAnswers,
  readReply,
  replyId,
  requestMessage,
  type Wire,
  WriterProtocolError,
} from './writer-thread-messages.js';

/** The little of a logger the writer needs; a pino logger fits it. */
export interface WriterThreadLogger {
  error(obj: object, msg: string): void;
}

/**
 * A request asked and not answered yet: its operation's name, which its reply is read as, and its
 * promise's own resolving functions. Nothing else: a closure here kept the request, and the context it was made in,
 * alive until the answer came, and under a PATCH load V8's young collections copied about 2,100 bytes
 * a request and promoted 1,200, against 1,400 and 700 without (`--trace-gc-nvp`, bench/notes.md).
 */
interface Waiting<N extends OperationName = OperationName> {
  readonly name: N;
  resolve(reply: ReplyOf<N>): void;
  reject(error: Error): void;
}

/** Settles `waiting`'s promise with what `reply` answers, or the error it is. */
function settleWith<N extends OperationName>(waiting: Waiting<N>, reply: Wire): void {
  const answer = readReply(waiting.name, reply);
  if (answer.ok) waiting.resolve(answer.value);
  else waiting.reject(answer.error);
}

/** The operation of the promise `run` is making, for `waitFor`; and what `waitFor` made of it. */
let promised: OperationName | undefined;
let madeWaiting: Waiting | undefined;

/**
 * The executor of every request's promise: one function, where an arrow in `run` would be a closure
 * and its context a request (about 100 bytes). A promise's executor runs at once, inside `new Promise`.
 */
function waitFor(resolve: (reply: never) => void, reject: (error: Error) => void): void {
  madeWaiting = { name: promised as OperationName, resolve, reject };
}

const HERE = import.meta.url;

/**
 * Starts the writer thread. Compiled (dist/), its entry is the sibling .js file. Run from the sources
 * (tsx, vitest), it is the .ts file, which a Node 20 worker cannot load even with `--import tsx` in its
 * execArgv (the loader hooks do not reach a worker's entry; measured on 20.20): the thread then
 * registers tsx itself before importing the entry.
 */
function startWorker(settings: OpenDatabaseOptions): Worker {
  if (!HERE.endsWith('.ts')) return new Worker(new URL('./writer-thread-entry.js', HERE), { workerData: settings });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./writer-thread-entry.ts', HERE).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); });`, {
    eval: true,
    workerData: settings,
  });
}

/**
 * Stock writes on a connection of a worker thread (writer-thread-entry.ts), so that this thread's event
 * loop never waits for a commit or an fsync: each write is posted as data with an id, and its promise
 * settles when the thread answers that id, which it does only once the write's batch is committed.
 *
 * Should the thread die (a bug, memory exhausted), the writes it had not answered fail with an error
 * naming the cause, which is logged; whether they were committed is unknown, as with any write whose
 * answer is lost (a retry with the same idempotency key replays it). The next write starts a new thread.
 */
export class WriterThreadQueue implements CommandQueue {
  private worker: Worker | undefined;
  /** The requests asked of the current thread and not yet answered, by id. */
  private readonly waiting = new Map<number, Waiting>();
  /** The requests not posted yet: they go together, once the thread has answered the last batch. */
  private outbox: Wire[] = [];
  /** How many posted requests the thread has not answered yet. */
  private posted = 0;
  private postScheduled = false;
  private lastId = 0;
  private closed: Promise<void> | undefined;

  /**
   * The thread starts with the first request, so a store that never writes stock runs none. `logger` is
   * told when the thread stops unexpectedly; `onGroupCommit` of the number of writes each of the thread's
   * group commits carried, once committed.
   */
  constructor(
    private readonly settings: OpenDatabaseOptions,
    private readonly hooks: {
      readonly logger?: WriterThreadLogger | undefined;
      readonly onGroupCommit?: ((writes: number) => void) | undefined;
      /** Called before the answers of a batch settle, and when the thread stops: its commits are done. */
      readonly onCommitted?: (() => void) | undefined;
    } = {},
  ) {}

  run<N extends OperationName>(name: N, request: RequestOf<N>): Promise<ReplyOf<N>> {
    if (this.closed !== undefined) return Promise.reject(new Error('the SQLite store is closed'));
    this.worker ??= this.start();
    const worker = this.worker;
    const id = ++this.lastId;
    let message: Wire;
    try {
      message = requestMessage(name, id, request);
    } catch (error) {
      // A request that cannot be sent rejects its promise, as a throw inside an executor would.
      return Promise.reject(error);
    }
    promised = name;
    const promise = new Promise<ReplyOf<N>>(waitFor);
    const waiting = madeWaiting as Waiting;
    madeWaiting = undefined;
    this.waiting.set(id, waiting);
    // The thread holds the process open only while it owes an answer.
    if (this.waiting.size === 1) worker.ref();
    this.outbox.push(message);
    this.schedulePost();
    return promise;
  }

  close(): Promise<void> {
    this.closed ??= this.stop();
    return this.closed;
  }

  /**
   * Posts the outbox as one message at the end of this turn of the event loop, unless the thread is
   * still on the last batch: then the outbox is posted when that batch is answered. A message a request
   * (one per HTTP request) would cost a copy, a wake-up of the thread and a system call each, on this
   * thread, for nothing: the thread cannot start the next batch before it has committed the last one, and
   * it takes whatever arrived meanwhile as one batch either way.
   */
  private schedulePost(): void {
    if (this.posted > 0 || this.postScheduled || this.outbox.length === 0) return;
    this.postScheduled = true;
    setImmediate(() => {
      this.postScheduled = false;
      if (this.posted === 0) this.send();
    });
  }

  private send(): void {
    const requests = this.outbox;
    if (requests.length === 0) return;
    this.outbox = [];
    this.posted += requests.length;
    this.worker?.postMessage(requests);
  }

  private start(): Worker {
    const worker = startWorker(this.settings);
    worker.unref();
    let failure: unknown;
    worker.on('message', (message: unknown) => {
      try {
        this.settle(worker, message);
      } catch (error) {
        // Answers that name no request (or one not asked) cannot be matched: whatever else the thread
        // says is doubtful, so it is stopped, and every request it had not answered fails with this.
        if (!(error instanceof WriterProtocolError)) throw error;
        failure ??= error;
        void worker.terminate();
      }
    });
    worker.on('error', (error) => {
      failure ??= error;
    });
    // 'exit' comes after every message the thread posted has been delivered, and after 'error'.
    worker.on('exit', (code) => this.stopped(worker, code, failure));
    return worker;
  }

  private settle(worker: Worker, message: unknown): void {
    const { replies, committed } = readAnswers(message);
    this.hooks.onCommitted?.();
    for (const writes of committed) this.hooks.onGroupCommit?.(writes);
    for (const reply of replies) {
      const id = replyId(reply);
      const waiting = this.waiting.get(id);
      if (waiting === undefined)
        throw new WriterProtocolError(`the writer thread answered ${id}, which it was not asked`);
      this.waiting.delete(id);
      settleWith(waiting, reply);
    }
    this.posted -= replies.length;
    this.schedulePost();
    if (this.waiting.size === 0) worker.unref();
  }

  private stopped(worker: Worker, code: number, failure: unknown): void {
    this.hooks.onCommitted?.();
    if (this.worker === worker) this.worker = undefined;
    const expected = this.closed !== undefined && failure === undefined && code === 0;
    if (expected && this.waiting.size === 0) return;
    const cause = failure ?? new Error(`the thread exited with code ${code}`);
    this.hooks.logger?.error(
      { err: cause, unanswered: this.waiting.size },
      'the SQLite writer thread stopped; its unanswered writes failed, the next write starts it again',
    );
    const error = new Error('the SQLite writer thread stopped before answering', { cause });
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
    this.outbox = [];
    this.posted = 0;
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    // Held open until the thread has committed what is pending and closed its connection.
    worker.ref();
    const exited = once(worker, 'exit');
    // Past any batch still out: the thread takes messages in order, and commits before it closes.
    this.send();
    worker.postMessage([CLOSE]);
    await exited;
  }
}
