/**
 * The writer thread's entry (started by WriterThreadQueue): opens its own connection to the file with
 * the store's settings and runs the group commit of stock writes there, so that the store's thread never
 * waits for a commit. Every answer is posted after the COMMIT of the transaction that holds it returned.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GroupCommit, type Job } from './group-commit.js';
import { type OpenDatabaseOptions, openConnection } from './open-database.js';
import { StockCommandStatements } from './stock-command-statements.js';
import { OPERATIONS, type OperationName, type ReplyOf, type RequestOf } from './store-operations.js';
import {
  errorReply,
  type RequestServer,
  replyMessage,
  serveRequest,
  type Wire,
  type WriterAnswers,
  WriterProtocolError,
} from './writer-thread-messages.js';

const port = parentPort;
if (port === null) throw new Error('writer-thread-entry runs in a worker thread, started by WriterThreadQueue');

/** The writer's automatic checkpoint threshold, in pages (SQLite's default is 1,000). */
const WAL_PAGES_BEFORE_CHECKPOINT = 10_000;

// An error here (the file cannot be opened) ends the thread; the store fails the pending writes with it.
// No migration and no write here: the store migrated the file before starting this thread, and a write
// would move the store's stamp (PRAGMA data_version) though nothing changed.
const db = openConnection(workerData as OpenDatabaseOptions);
// SQLite checkpoints inside the commit that takes the WAL past this many pages, writing every page the
// WAL holds back to the file (and, with FULL, syncing it) while the writes behind it wait. Stock writes
// come back to the same pages, so ten times fewer checkpoints write about ten times less: with 1,000,000
// pets, about 12,800 against 8,800 writes a second and half the p99 (measured in this thread, 50 in flight).
// The WAL grows to about 40 MB between checkpoints, instead of 4.
db.pragma(`wal_autocheckpoint = ${WAL_PAGES_BEFORE_CHECKPOINT}`);
const statements = new StockCommandStatements(db);
// The answers of one batch settle in the same microtask checkpoint, right after its commit: they are
// gathered and posted as one message, so the store's thread wakes once a batch, not once a write.
let outbox: Wire[] = [];
let committed: number[] = [];
const batches = new GroupCommit(db, (writes) => committed.push(writes));
const post = (): void => {
  const answers: WriterAnswers = { replies: outbox, committed };
  outbox = [];
  committed = [];
  port.postMessage(answers);
};
const answer = (reply: Wire): void => {
  if (outbox.push(reply) === 1) queueMicrotask(post);
};

/**
 * A grouped request in the group commit: runs its operation, and answers it once the batch is committed
 * (or with the error it failed with). One object a write, its own job: a promise and its reactions
 * would be five more objects and three closures a write.
 */
class OperationJob<N extends OperationName> implements Job {
  private reply: ReplyOf<N> | undefined;

  constructor(
    private readonly name: N,
    private readonly id: number,
    private readonly request: RequestOf<N>,
  ) {}

  run(): void {
    this.reply = OPERATIONS[this.name].perform(statements, this.request);
  }

  resolve(): void {
    answer(replyMessage(this.name, this.id, this.reply as ReplyOf<N>));
  }

  reject(error: unknown): void {
    answer(errorReply(this.id, error));
  }
}

/** Runs request `id` of operation `name`: in the group commit, or at once (see Operation's `grouped`). */
function perform<N extends OperationName>(name: N, id: number, request: RequestOf<N>): void {
  const operation = OPERATIONS[name];
  if (operation.grouped) {
    batches.enqueue(new OperationJob(name, id, request));
    return;
  }
  try {
    answer(replyMessage(name, id, operation.perform(statements, request)));
  } catch (error) {
    answer(errorReply(id, error));
  }
}

const server: RequestServer = {
  serve: perform,
  close: () => {
    batches.flush();
    // The answers of that last batch are posted from promise reactions, which run before this.
    setImmediate(() => {
      db.close();
      port.close();
    });
  },
  unreadable: (id, error) => answer(errorReply(id, error)),
};

// The store's thread posts the requests of each of its turns together. A message that is not a list of
// requests, or a request without an id, throws: the thread ends, and the store fails what it had asked.
port.on('message', (requests: unknown) => {
  if (!Array.isArray(requests)) throw new WriterProtocolError('the store posted something else than requests');
  for (const request of requests) serveRequest(request, server);
});
