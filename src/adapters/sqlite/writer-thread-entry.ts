/**
 * The writer thread's entry (started by WriterThreadQueue): opens its own connection to the file with
 * the store's settings and runs the group commit of stock writes there, so that the store's thread never
 * waits for a commit. Every answer is posted after the COMMIT of the transaction that holds it returned.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import { GroupCommit } from './group-commit.js';
import { type OpenDatabaseOptions, openConnection } from './open-database.js';
import { type QueuedCommand, type QueuedResult, StockCommandStatements } from './stock-command-statements.js';
import {
  commandOf,
  errorData,
  resultReply,
  type WriterAnswers,
  type WriterReply,
  type WriterRequest,
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
const writer = new StockCommandStatements(db);
// The answers of one batch settle in the same microtask checkpoint, right after its commit: they are
// gathered and posted as one message, so the store's thread wakes once a batch, not once a write.
let outbox: WriterReply[] = [];
let committed: number[] = [];
const batches = new GroupCommit<QueuedCommand, QueuedResult>(
  db,
  (command) => writer.run(command),
  (writes) => committed.push(writes),
);
const post = (): void => {
  const answers: WriterAnswers = { replies: outbox, committed };
  outbox = [];
  committed = [];
  port.postMessage(answers);
};
const answer = (reply: WriterReply): void => {
  if (outbox.push(reply) === 1) queueMicrotask(post);
};

/** Answers a request that runs at once, outside the group commit, with its count or its error. */
const answerNow = (id: number, run: () => number): void => {
  try {
    answer(['value', id, run()]);
  } catch (error) {
    answer(['error', id, errorData(error)]);
  }
};

const handle = (request: WriterRequest): void => {
  switch (request[0]) {
    case 'write': {
      const id = request[1];
      batches.submit(commandOf(request)).then(
        (result) => answer(resultReply(id, result as StockWriteResult)),
        (error: unknown) => answer(['error', id, errorData(error)]),
      );
      return;
    }
    case 'reserve': {
      const [, id, command] = request;
      batches.submit(command).then(
        (result) => answer(['value', id, result]),
        (error: unknown) => answer(['error', id, errorData(error)]),
      );
      return;
    }
    case 'forget':
      answerNow(request[1], () => writer.forgetExpiredOutcomes(request[2], request[3]));
      return;
    case 'lapse':
      answerNow(request[1], () => writer.markLapse(request[2], request[3]));
      return;
    case 'close':
      batches.flush();
      // The answers of that last batch are posted from promise reactions, which run before this.
      setImmediate(() => {
        db.close();
        port.close();
      });
      return;
  }
};

// The store's thread posts the requests of each of its turns together.
port.on('message', (requests: readonly WriterRequest[]) => {
  for (const request of requests) handle(request);
});
