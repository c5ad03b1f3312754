import pg from 'pg';
import { type RoundResult, StatementRound } from './statement-round.js';

/** How to reach PostgreSQL, and how long anything may take there. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string;
  /** The most connections this process holds; default 10. */
  readonly poolSize?: number;
  /**
   * The longest one statement may run before PostgreSQL cancels it; default 5,000 ms. The client gives
   * up a little later on its own, for a server that has stopped answering at all.
   */
  readonly statementTimeoutMs?: number;
  /** The longest a request waits for a connection, new or from the pool; default 2,000 ms. */
  readonly connectTimeoutMs?: number;
  /** Lanes of group writes, each on a connection of its own; default 1 (see GroupedWriter). */
  readonly writeLanes?: number;
  /** Told the number of writes each group carried, once committed (a metric). */
  readonly onGroupCommit?: (writes: number) => void;
  /** Told when the server stops answering (with the failure) and when it answers again. */
  readonly onHealthChange?: (healthy: boolean, cause?: unknown) => void;
}

/** Thrown when PostgreSQL cannot answer for now (down, restarting, overloaded): the HTTP edge answers 503. */
export class PostgresUnavailableError extends Error {
  readonly code = 'unavailable';

  constructor(options: { readonly cause: unknown }) {
    super('PostgreSQL is unavailable', options);
    this.name = 'PostgresUnavailableError';
  }
}

/**
 * Thrown when a write's COMMIT was sent but its answer was lost, and whether it committed could not be
 * learnt in time (PostgreSQL unreachable from another connection as well): the write may be saved or
 * not. Unlike `unavailable` ("not done, retry"), a client should read before writing again, or retry
 * under the same Idempotency-Key, which replays the write if it was saved.
 */
export class OutcomeUnknownError extends Error {
  readonly code = 'outcome_unknown';

  constructor(options: { readonly cause: unknown }) {
    super('the answer to COMMIT was lost and how the transaction ended could not be learnt', options);
    this.name = 'OutcomeUnknownError';
  }
}

/** How a transaction ended, as PostgreSQL's commit log tells it. */
export type TransactionEnd = 'committed' | 'aborted';

/** The first wait before asking again how a transaction ended, and the longest. */
const END_POLL_FIRST_MS = 50;
const END_POLL_MAX_MS = 1_000;

/**
 * SQLSTATE classes that mean the server cannot serve now, not that the statement is wrong: 08
 * connection exception, 53 insufficient resources (too many connections), 57 operator intervention
 * (shutdown, restart, statement timeout), 58 system error; and 25006, a read-only transaction, which is
 * what a standby answers after a failover.
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** What node-postgres says, without a code, when a connection cannot be had or is lost. */
const DRIVER_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|not queryable/;

function meansUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof pg.DatabaseError) {
    const state = error.code ?? '';
    return UNAVAILABLE_CLASSES.has(state.slice(0, 2)) || state === '25006';
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return DRIVER_MESSAGES.test(error.message);
}

/** Turns a failure of the server or the connection into PostgresUnavailableError; anything else stays as it is. */
function classified(error: unknown): unknown {
  return meansUnavailable(error) ? new PostgresUnavailableError({ cause: error }) : error;
}

/** int8 comes back as an exact bigint: ids span the whole signed 64-bit range. Set on the pool, not globally. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? BigInt : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A value a statement takes; bigints are sent as their exact decimal text, and arrays as PostgreSQL
 * array literals, each element escaped by node-postgres.
 */
export type SqlValue = string | number | bigint | boolean | null | readonly SqlValue[];

/**
 * A statement of the request path, which each connection parses and plans once, under `name`, instead
 * of on every call. Only for statements of fixed text: a connection keeps every one it has prepared.
 */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

export const prepared = (name: string, text: string): Prepared => ({ name, text });

/** SQL text, or a prepared statement. */
export type Sql = string | Prepared;

/** The part of a connection a statement needs: the pool, or the client of a transaction. */
export interface Queryable {
  /** Rows as arrays, in the order of the SELECT list: cheaper to build than objects. */
  rows<R extends readonly unknown[]>(sql: Sql, values?: readonly SqlValue[]): Promise<R[]>;
  /** The number of rows a statement wrote. */
  run(sql: Sql, values?: readonly SqlValue[]): Promise<number>;
}

/** The connection of one transaction. */
export interface Transaction extends Queryable {
  /**
   * Sends COMMIT now, behind the statements already sent, without waiting for their answers: on a
   * pipelined connection the last statements and the commit share one round trip. Should one of
   * them fail, PostgreSQL answers the COMMIT by rolling back, and that statement's failure is thrown
   * where it is awaited. Without it, the transaction commits once `work` resolves.
   */
  commit(): Promise<void>;
}

const configOf = (sql: Sql, values: readonly SqlValue[]): pg.QueryConfig<unknown[]> =>
  typeof sql === 'string'
    ? { text: sql, values: [...values] }
    : { name: sql.name, text: sql.text, values: [...values] };

const queryableOf = (target: pg.Pool | pg.PoolClient): Queryable => ({
  async rows<R extends readonly unknown[]>(sql: Sql, values: readonly SqlValue[] = []) {
    try {
      const config: pg.QueryArrayConfig<unknown[]> = { ...configOf(sql, values), rowMode: 'array' };
      // The column types are the SELECT list's: the caller names them in R.
      return (await target.query(config)).rows as unknown as R[];
    } catch (error) {
      throw classified(error);
    }
  },
  async run(sql: Sql, values: readonly SqlValue[] = []) {
    try {
      return (await target.query(configOf(sql, values))).rowCount ?? 0;
    } catch (error) {
      throw classified(error);
    }
  },
});

/** A connection's statements sent by turn, and its COMMIT: resolves whether PostgreSQL ran it (see sendingByTurn). */
interface TurnStatements extends Queryable {
  commit(): Promise<boolean>;
}

/** A statement of a turn, waiting to be sent at the turn's end. */
interface TurnStatement {
  readonly sql: Sql;
  readonly values: readonly SqlValue[];
  readonly rowMode: 'array' | undefined;
  resolve(result: RoundResult): void;
  reject(error: unknown): void;
  /** Told instead of `reject` when PostgreSQL did not run the statement: one before it in its round failed. */
  notRun?(): void;
}

/**
 * The statements of a checked-out connection, whose sends of one turn of the event loop leave together
 * once the turn's code has run, as node's HTTP server sends a response's. A transaction's BEGIN and first
 * statements, or its last statement and COMMIT, then cost one system call here and one read on the
 * server, not one a statement.
 *
 * When every named statement of the turn has been parsed on the connection already, they go as one
 * StatementRound: one Sync for all of them, so that PostgreSQL answers them in one write and the
 * connection reads one answer, not one a statement. They run as before, one after the other, each once
 * the one before it has ended; a statement after one that failed is not run, and is answered with that
 * failure (as before, where it failed as the aborted transaction's). A turn with a statement not parsed
 * yet (a connection's first groups) sends each as its own query, which parses it.
 *
 * `commit` sends COMMIT with the turn's other statements, and tells whether PostgreSQL ran it: it does
 * not when a statement before it in its round failed, and the transaction is then still open (aborted).
 */
function sendingByTurn(client: pg.PoolClient): TurnStatements {
  const { stream } = client.connection;
  const statements = queryableOf(client);
  const parsed = (client.connection as unknown as { parsedStatements: Record<string, string | undefined> })
    .parsedStatements;
  let turn: TurnStatement[] = [];
  // Text without values goes as a simple query, which may hold several commands: never in a round.
  const inRound = ({ sql, values }: TurnStatement): boolean =>
    typeof sql === 'string' ? values.length > 0 : parsed[sql.name] === sql.text;
  const sendPart = (part: readonly TurnStatement[]): void => {
    if (part.length > 1 && part.every(inRound)) {
      sendRound(client, part);
      return;
    }
    for (const waiting of part) {
      const query =
        waiting.rowMode === 'array'
          ? statements.rows(waiting.sql, waiting.values).then((rows) => ({ rows, rowCount: null }))
          : statements.run(waiting.sql, waiting.values).then((rowCount) => ({ rows: [], rowCount }));
      query.then(waiting.resolve, waiting.reject);
    }
  };
  // A round ends with its COMMIT: what the turn sends after it (the next transaction) has a Sync of
  // its own, and is never skipped for a failure of the transaction before.
  const send = (): void => {
    const sent = turn;
    turn = [];
    stream.cork();
    try {
      let from = 0;
      for (let index = 0; index < sent.length; index += 1) {
        if ((sent[index] as TurnStatement).sql !== COMMIT) continue;
        sendPart(sent.slice(from, index + 1));
        from = index + 1;
      }
      if (from < sent.length) sendPart(from === 0 ? sent : sent.slice(from));
    } finally {
      stream.uncork();
    }
  };
  // The turn's first statement schedules its send, at the end of the turn.
  const enqueue = (statement: TurnStatement): void => {
    if (turn.length === 0) process.nextTick(send);
    turn.push(statement);
  };
  const queued = (sql: Sql, values: readonly SqlValue[], rowMode: 'array' | undefined): Promise<RoundResult> =>
    new Promise((resolve, reject) => enqueue({ sql, values, rowMode, resolve, reject }));
  return {
    async rows<R extends readonly unknown[]>(sql: Sql, values: readonly SqlValue[] = []) {
      return (await queued(sql, values, 'array')).rows as unknown as R[];
    },
    async run(sql: Sql, values: readonly SqlValue[] = []) {
      return (await queued(sql, values, undefined)).rowCount ?? 0;
    },
    commit: () =>
      new Promise<boolean>((resolve, reject) =>
        enqueue({
          sql: COMMIT,
          values: [],
          rowMode: undefined,
          resolve: () => resolve(true),
          reject,
          notRun: () => resolve(false),
        }),
      ),
  };
}

/** Sends `sent` as one StatementRound, and answers each of them with its result or the round's failure. */
function sendRound(client: pg.PoolClient, sent: readonly TurnStatement[]): void {
  const round = new StatementRound(
    sent.map(({ sql, values, rowMode }) => ({
      name: typeof sql === 'string' ? undefined : sql.name,
      text: typeof sql === 'string' ? sql : sql.text,
      values,
      rowMode,
    })),
    (error, results) => {
      const failure = classified(error ?? new Error('a statement of a round was not answered'));
      // After a statement PostgreSQL refused, it skips the rest of the round. After any other failure
      // (the connection lost, an answer this process could not read) what it ran is not known.
      const skipped = (index: number): boolean => index > results.length && error instanceof pg.DatabaseError;
      sent.forEach((waiting, index) => {
        const result = results[index];
        if (result !== undefined) waiting.resolve(result);
        else if (skipped(index) && waiting.notRun !== undefined) waiting.notRun();
        else waiting.reject(failure);
      });
    },
  );
  // The round's outcome reaches each statement through the callback above.
  void client.query(round);
}

/** A transaction's ends, named so that they may go in a StatementRound with its statements. */
const BEGIN = prepared('transaction_begin', 'BEGIN');
const COMMIT = prepared('transaction_commit', 'COMMIT');

/** PostgreSQL's in_failed_sql_transaction: a statement sent in a transaction that an earlier failure aborted. */
export const failedOnAbortedTransaction = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '25P02';

/** How a transaction runs on a chain, and whom it tells that its COMMIT is on its way. */
export interface Chained {
  readonly chain: TransactionChain;
  readonly onCommitSent: () => void;
}

/** A connection for one transaction, and how it is given back when the transaction ends (destroyed with an error). */
interface Lease {
  readonly connection: Promise<CheckedOut>;
  release(error?: Error): void;
}

/** A connection checked out for one transaction alone. */
function leaseOf(checkout: () => Promise<CheckedOut>): Lease {
  const connection = checkout();
  return {
    connection,
    release: (error) => {
      connection.then(
        (checkedOut) => checkedOut.release(error),
        () => {},
      );
    },
  };
}

/** A chain's connection and the transactions on it, under way or waiting for their COMMIT's answer. */
interface ChainLink {
  readonly lease: Lease;
  users: number;
  broken: Error | undefined;
}

/**
 * Transactions that follow each other on one connection: the next one's BEGIN and first statements are
 * sent as soon as the one before it has sent its COMMIT, not once COMMIT is answered. PostgreSQL runs
 * them in order, so the next one reads, under its locks, what the one before committed, and the round
 * trip that waited for each commit's answer (a wake-up of the server and of this process, then the
 * next send) is gone: the server goes on to the next transaction at once.
 *
 * Its user starts a transaction only once the one before has sent its COMMIT (see `onCommitSent`): two
 * transactions never interleave their statements. The connection is checked out of the pool while any
 * transaction of the chain is under way, given back when none is, and destroyed once lost: a
 * transaction started after that checks out another.
 */
export class TransactionChain {
  private link: ChainLink | undefined;

  constructor(private readonly checkout: () => Promise<CheckedOut>) {}

  /**
   * The connection for one more transaction. Released, it goes back once no transaction of the chain
   * is under way (destroyed if any of them released it with an error).
   */
  take(): Lease {
    if (this.link === undefined || this.link.broken !== undefined) {
      this.link = { lease: leaseOf(this.checkout), users: 0, broken: undefined };
    }
    const link = this.link;
    link.users += 1;
    return {
      connection: link.lease.connection,
      release: (error) => {
        link.broken ??= error;
        link.users -= 1;
        if (link.users > 0) return;
        if (this.link === link) this.link = undefined;
        link.lease.release(link.broken);
      },
    };
  }
}

/** A connection checked out of the pool, with what happened to it meanwhile. */
interface CheckedOut {
  readonly client: pg.PoolClient;
  readonly statements: TurnStatements;
  /** The error the connection reported while checked out, if it did. */
  lost(): Error | undefined;
  /** Gives the connection back, or destroys it when given an error (or when it was lost). */
  release(error?: Error): void;
}

/** Carries a refusal out of a transaction, which rolls back only when its work throws. */
class TransactionRefusal<E> extends Error {
  constructor(readonly reason: E) {
    super('the write was refused');
  }
}

const codeOf = (error: unknown): unknown =>
  typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;

/** A pool of connections to one database, whose failures to reach the server come out as PostgresUnavailableError. */
export class PostgresDatabase implements Queryable {
  private readonly pool: pg.Pool;
  private readonly direct: Queryable;
  private up = true;
  private probe: NodeJS.Timeout | undefined;
  /** How long a transaction whose connection went silent may stay open on the server (see the pool). */
  private readonly idleInTransactionMs: number;
  private readonly connectTimeoutMs: number;
  private readonly onHealthChange: (healthy: boolean, cause?: unknown) => void;

  constructor(options: PostgresOptions) {
    this.onHealthChange = options.onHealthChange ?? (() => {});
    this.connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
    const statementTimeoutMs = options.statementTimeoutMs ?? 5_000;
    this.idleInTransactionMs = statementTimeoutMs * 2;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: this.connectTimeoutMs,
      statement_timeout: statementTimeoutMs,
      // A server that stops answering at all never cancels anything: the client stops waiting too.
      query_timeout: statementTimeoutMs + 1_000,
      // A process that stalls inside a transaction must not hold its row locks for long.
      idle_in_transaction_session_timeout: this.idleInTransactionMs,
      keepAlive: true,
      // Statements are sent without waiting for the answers before them: a transaction's statements
      // that do not depend on one another share a round trip (see PostgresInventoryRepository.write).
      pipeline: true,
      application_name: 'petstore',
      types,
    });
    // An idle connection that breaks (a server restart) is reported here; without a listener it would
    // crash the process. The pool drops it, and the next checkout connects anew.
    this.pool.on('error', (error) => this.setHealthy(false, error));
    this.direct = queryableOf(this.pool);
  }

  rows<R extends readonly unknown[]>(sql: Sql, values?: readonly SqlValue[]): Promise<R[]> {
    return this.track(this.direct.rows<R>(sql, values));
  }

  run(sql: Sql, values?: readonly SqlValue[]): Promise<number> {
    return this.track(this.direct.run(sql, values));
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it
   * throws. A connection whose rollback fails is destroyed rather than given back to the pool.
   *
   * With `chained`, the transaction runs on the chain's connection, and `chained.onCommitSent` is told
   * once its COMMIT is sent: from then on the next transaction of the chain may start, its statements
   * sent behind that COMMIT (see TransactionChain).
   */
  async transaction<T>(work: (tx: Transaction) => Promise<T>, chained?: Chained): Promise<T> {
    return this.track(this.inTransaction(work, chained));
  }

  /** A chain of transactions on one connection at a time (see TransactionChain). */
  chain(): TransactionChain {
    return new TransactionChain(() => this.checkout());
  }

  /**
   * Runs `work` in one transaction that is rolled back when `work` resolves to a refusal (an expected
   * failure such as a duplicate id) and committed when it resolves to `undefined`.
   */
  async allOrNothing<E>(work: (tx: Queryable) => Promise<E | undefined>): Promise<E | undefined> {
    try {
      await this.transaction(async (tx) => {
        const refusal = await work(tx);
        if (refusal !== undefined) throw new TransactionRefusal(refusal);
      });
      return undefined;
    } catch (error) {
      if (error instanceof TransactionRefusal) return error.reason as E;
      throw error;
    }
  }

  /**
   * How the transaction `xact.id` (its `pg_current_xact_id()`) ended, asked on another connection; or
   * `undefined` when that cannot be learnt in time. A transaction whose connection was lost stays in
   * progress until its server notices: at once when the socket closed, after the idle-in-transaction
   * timeout when the network went silent (then it is rolled back), or after a restart. So it is asked
   * again, backing off, for that timeout and a connection timeout more; a server still unreachable by
   * then leaves the answer unknown.
   *
   * After a crash, an id that no WAL record of the server named before it fell is given again to a new
   * transaction, whose end would then be read as this one's. So when the server has restarted since
   * `xact.serverStart`, only "aborted" (or an id not given yet) is trusted: had the transaction
   * committed, its commit record would have named the id, and it would read committed. A "committed" or
   * "in progress" read after a restart leaves the answer unknown.
   */
  async transactionEnd(xact: {
    readonly id: string;
    readonly serverStart: string;
  }): Promise<TransactionEnd | undefined> {
    const deadline = Date.now() + this.idleInTransactionMs + this.connectTimeoutMs;
    for (let waitMs = END_POLL_FIRST_MS; ; waitMs = Math.min(waitMs * 2, END_POLL_MAX_MS)) {
      const read = await this.xactStatus(xact.id);
      if (read !== undefined) {
        const restarted = read.serverStart !== xact.serverStart;
        if (!restarted && (read.status === 'committed' || read.status === 'aborted')) return read.status;
        if (restarted) return read.status === 'aborted' || read.status === 'not given' ? 'aborted' : undefined;
      }
      if (Date.now() + waitMs > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  /**
   * The server's start and the status of `id` on it (`not given` for an id beyond the last one it
   * gave, which pg_xact_status refuses); `undefined` while the server cannot be asked.
   */
  private async xactStatus(id: string): Promise<{ readonly serverStart: string; readonly status: string } | undefined> {
    const [started] = await this.direct.rows<[string]>('SELECT pg_postmaster_start_time()::text').catch(() => []);
    if (started === undefined) return undefined;
    const status = await this.direct.rows<[string | null]>('SELECT pg_xact_status($1::xid8)', [id]).then(
      ([row]) => row?.[0] ?? 'unknown',
      // 22023: "transaction ID ... is in the future".
      (error: unknown) => (codeOf(error) === '22023' ? 'not given' : undefined),
    );
    return status === undefined ? undefined : { serverStart: started[0], status };
  }

  /**
   * Whether the server answered the last statement or probe. A failure to reach it turns this false at
   * once; the probe (see `watch`) turns it true again when the server is back, with or without traffic.
   */
  healthy(): boolean {
    return this.up;
  }

  /** Probes the server with `SELECT 1` every `intervalMs`, so `healthy` follows it while no request does. */
  watch(intervalMs: number): void {
    if (this.probe !== undefined) return;
    this.probe = setInterval(() => {
      this.run('SELECT 1').catch(() => {});
    }, intervalMs);
    this.probe.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.probe);
    await this.pool.end();
  }

  /** A connection of the pool, to be given back (or destroyed, with an error) by `release`. */
  private async checkout(): Promise<CheckedOut> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw classified(error);
    }
    // A connection lost while checked out is reported here too; without a listener the event would
    // crash the process. The statement under way fails on its own, and the client is destroyed on release.
    let lost: Error | undefined;
    const onError = (error: Error): void => {
      lost = error;
    };
    client.on('error', onError);
    return {
      client,
      statements: sendingByTurn(client),
      lost: () => lost,
      release: (error?: Error): void => {
        client.off('error', onError);
        client.release(error ?? lost);
      },
    };
  }

  private async inTransaction<T>(work: (tx: Transaction) => Promise<T>, chained?: Chained): Promise<T> {
    const lease = chained === undefined ? leaseOf(() => this.checkout()) : chained.chain.take();
    let connection: CheckedOut;
    try {
      connection = await lease.connection;
    } catch (error) {
      lease.release();
      throw error;
    }
    const { client, statements, lost } = connection;
    const release = (error?: Error): void => lease.release(error);
    // Whether PostgreSQL ran the COMMIT sent (see sendingByTurn's `commit`).
    let committed: Promise<boolean> | undefined;
    const tx: Transaction = {
      rows: statements.rows,
      run: statements.run,
      commit: async () => {
        if (committed === undefined) {
          committed = statements.commit();
          chained?.onCommitSent();
        }
        if (!(await committed)) throw new Error('COMMIT was not run: a statement sent before it failed');
      },
    };
    // Not awaited: on a pipelined connection BEGIN travels with the work's first statements. Should
    // it fail, so do they, and their failure is the one thrown.
    const begun = statements.run(BEGIN);
    begun.catch(() => {});
    try {
      const result = await work(tx);
      await begun;
      await tx.commit();
      release();
      return result;
    } catch (error) {
      try {
        // A COMMIT that PostgreSQL ran ended the transaction, failing or not, and the chain's next
        // transaction may already follow it: a ROLLBACK then would end that one. Only a transaction
        // still open is rolled back: no COMMIT sent, or one not run because a statement before it
        // failed (then nothing behind it can have begun: it fails on the aborted transaction).
        // A chained transaction whose BEGIN came into the aborted one before it began nothing: that
        // one's own ROLLBACK ends it, and a second would only draw the server's warning.
        const beginFailure = await begun.then(
          () => undefined,
          (failure: unknown) => failure,
        );
        const begunNothing = chained !== undefined && failedOnAbortedTransaction(beginFailure);
        const open = !begunNothing && (committed === undefined || !(await committed.catch(() => true)));
        if (open && lost() === undefined) await client.query('ROLLBACK');
        release();
      } catch (rollbackError) {
        release(rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)));
      }
      throw error;
    }
  }

  private async track<T>(work: Promise<T>): Promise<T> {
    try {
      const result = await work;
      this.setHealthy(true);
      return result;
    } catch (error) {
      if (error instanceof PostgresUnavailableError) this.setHealthy(false, error.cause);
      throw error;
    }
  }

  private setHealthy(healthy: boolean, cause?: unknown): void {
    if (healthy === this.up) return;
    this.up = healthy;
    this.onHealthChange(healthy, cause);
  }
}
