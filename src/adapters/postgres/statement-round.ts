import pg from 'pg';

/**
 * A statement of a round: a named statement already parsed on the connection (only its Bind is
 * sent), or SQL text parsed as the unnamed statement.
 */
export interface RoundStatement {
  readonly name: string | undefined;
  readonly text: string;
  readonly values: readonly unknown[];
  readonly rowMode: 'array' | undefined;
}

/** What a statement of a round answers: its rows (as arrays or objects, as asked) and the rows it wrote. */
export interface RoundResult {
  readonly rows: unknown[];
  readonly rowCount: number | null;
}

/** The parts of node-postgres's connection and result that a round uses (not in its published types). */
interface PgWire {
  readonly stream: { cork(): void; uncork(): void };
  parse(query: { text: string; name: string; types: undefined }): void;
  bind(config: { statement: string; values: readonly unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(config: { portal: string }): void;
  sync(): void;
}

interface ResultBuilder {
  rows: unknown[];
  rowCount: number | null;
  addFields(fields: unknown): void;
  parseRow(fields: unknown): unknown;
  addRow(row: unknown): void;
  addCommandComplete(message: unknown): void;
}

type ResultConstructor = new (rowMode: string | undefined, types: unknown) => ResultBuilder;

const { Result, utils } = pg as unknown as {
  Result: ResultConstructor;
  utils: { prepareValue(value: unknown): unknown };
};

/**
 * Statements sent together with one Sync at their end: PostgreSQL runs them one after the other, each
 * taking its own snapshot once the one before it has ended, as when each has its own Sync, but answers
 * them all in one write (it flushes its answers at a Sync), and the client reads them as one query. When
 * one fails, PostgreSQL skips the rest up to the Sync: they are answered with its error. A query of
 * node-postgres's own class, so that a pipelined connection takes it like any other.
 *
 * `done` is told each statement's result in order, up to the one that failed, then the failure.
 */
export class StatementRound extends pg.Query {
  private readonly results: RoundResult[] = [];
  private current: ResultBuilder | undefined;
  private failure: unknown;

  constructor(
    private readonly statements: readonly RoundStatement[],
    done: (error: unknown, results: readonly RoundResult[]) => void,
  ) {
    super({ text: '' });
    (this as unknown as { callback: (error: unknown) => void }).callback = (error) => done(error, this.results);
    this.submit = (connection) => this.send(connection as unknown as PgWire);
  }

  private send(wire: PgWire): null {
    wire.stream.cork();
    try {
      for (const statement of this.statements) {
        if (statement.name === undefined) wire.parse({ text: statement.text, name: '', types: undefined });
        wire.bind({ statement: statement.name ?? '', values: statement.values, valueMapper: utils.prepareValue });
        wire.describe({ type: 'P', name: '' });
        wire.execute({ portal: '' });
      }
    } catch (error) {
      // A value that cannot be sent (its mapping threw): what was sent is answered, then this error.
      this.failure = error;
    } finally {
      wire.sync();
      wire.stream.uncork();
    }
    return null;
  }

  /** The connection's type parsers, which node-postgres gives the query's own result when it is queued. */
  private resultTypes(): unknown {
    return (this as unknown as { _result: { _types: unknown } })._result._types;
  }

  handleRowDescription(message: { fields: unknown }): void {
    const statement = this.statements[this.results.length];
    this.current = new Result(statement?.rowMode, this.resultTypes());
    this.current.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown }): void {
    if (this.failure !== undefined || this.current === undefined) return;
    try {
      this.current.addRow(this.current.parseRow(message.fields));
    } catch (error) {
      this.failure = error;
    }
  }

  handleCommandComplete(message: unknown): void {
    const result = this.current ?? new Result(undefined, this.resultTypes());
    this.current = undefined;
    // A statement whose row could not be read is answered with that failure, not with the rows read.
    if (this.failure !== undefined) return;
    result.addCommandComplete(message);
    this.results.push({ rows: result.rows, rowCount: result.rowCount });
  }

  handleEmptyQuery(): void {
    this.results.push({ rows: [], rowCount: null });
  }

  handleReadyForQuery(): void {
    const callback = (this as unknown as { callback: (error: unknown) => void }).callback;
    callback(this.failure);
  }
}
