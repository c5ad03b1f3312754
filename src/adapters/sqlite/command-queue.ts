import type { Database } from 'better-sqlite3';
import { GroupCommit } from './group-commit.js';
import { StockCommandStatements } from './stock-command-statements.js';
import { OPERATIONS, type OperationName, type ReplyOf, type RequestOf } from './store-operations.js';

/**
 * Where SqliteInventoryRepository sends its writes, each a store operation's name and its request (see
 * store-operations.ts): a group commit on the store's own connection (InlineCommandQueue), or one on a
 * connection of a worker thread (WriterThreadQueue). Either way a write settles only once the
 * transaction that holds it is committed.
 */
export interface CommandQueue {
  run<N extends OperationName>(name: N, request: RequestOf<N>): Promise<ReplyOf<N>>;
  /** Commits the writes still pending, then stops; later writes are refused. */
  close(): Promise<void>;
}

/**
 * The writes on the store's connection, on this thread: each batch's commit (and its fsync) holds this
 * thread's event loop, which is what a CLI or a test wants and a busy server does not.
 */
export class InlineCommandQueue implements CommandQueue {
  private readonly statements: StockCommandStatements;
  private readonly batches: GroupCommit;

  /**
   * `onWrite` is told of every stock row changed, as StockCommandStatements says; `onGroupCommit` of the
   * number of writes each group commit carried, once committed.
   */
  constructor(
    db: Database,
    hooks: { readonly onWrite: () => void; readonly onGroupCommit?: ((writes: number) => void) | undefined },
  ) {
    this.statements = new StockCommandStatements(db, hooks.onWrite);
    this.batches = new GroupCommit(db, hooks.onGroupCommit);
  }

  run<N extends OperationName>(name: N, request: RequestOf<N>): Promise<ReplyOf<N>> {
    const operation = OPERATIONS[name];
    if (operation.grouped) return this.batches.submit(() => operation.perform(this.statements, request));
    try {
      return Promise.resolve(operation.perform(this.statements, request));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async close(): Promise<void> {
    this.batches.flush();
  }
}
