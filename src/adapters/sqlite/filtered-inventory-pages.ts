import type { Database, Statement } from 'better-sqlite3';
import type { InventoryQuery } from '../../application/ports/inventory-repository.js';
import type { PetId } from '../../domain/pet-id.js';

/**
 * How many pets a page of `maxAvailable` walks in id order before it turns to the index of low stock:
 * when the filter matches many pets, the walk fills the page at once; when it matches few, the index
 * finds them without reading the others (see `page`).
 */
const WALK_BUDGET_PER_ENTRY = 8;
const WALK_BUDGET_MIN = 1_024;

/** Whether `query` narrows the list by status or by what is available, beyond paging. */
export const isFiltered = (query: InventoryQuery): boolean =>
  query.statuses !== undefined || query.maxAvailable !== undefined;

/** The named parameters of a filtered page's statements. */
interface PageParams {
  readonly size: number;
  readonly now: number;
  readonly after?: bigint;
  readonly max?: number;
  readonly budget?: number;
}

/**
 * How a page's rows are read: each as it is, or as one row of aggregates over them. `select` makes the
 * statement from the SELECT of the rows (`columns` over `pets`); `count` says how many entries the rows
 * a statement answered hold.
 */
export interface PageShape<Row> {
  readonly select: (rows: string) => string;
  readonly count: (rows: readonly Row[]) => number;
}

/** How far a walk went: how many pets it read, and the last id among them (null: none). */
type WalkEnd = readonly [read: bigint | number, last: bigint | null];

/**
 * The statements of a filter's pages, for one shape of query (its statuses, whether it has
 * maxAvailable and `after`). The statuses are written into the text: they are PetStatus names the edge
 * checked, and each set of them gets its own plan.
 */
interface ShapeStatements<Row> {
  /** The whole page by the status index, or by the walk (maxAvailable). */
  readonly first: Statement<[PageParams], Row>;
  /** maxAvailable only: how far the walk went, and the rest of the page by the index of low stock. */
  readonly walkEnd?: Statement<[PageParams], WalkEnd>;
  readonly rest?: Statement<[PageParams], Row>;
}

/**
 * Pages of the list narrowed by status and by what is available, each read by one or two short
 * queries that touch the matching pets and few others:
 * - by status alone, each status's pets are read in id order from `pets_by_status` (at most a page of
 *   each), and the page is the first of them by id;
 * - with maxAvailable, the page first walks the pets after `after` in id order, at most a budget of
 *   them; if the walk filled no page, the rest comes from `pets_by_spare` (quantity - held, at most
 *   what is available), which holds the pets of low stock apart from the others, or with statuses from
 *   `pets_by_status_spare` (the same within each status), from where the walk stopped on. What is
 *   available is then checked exactly (a hold may have lapsed unmarked).
 * Either way the page is exact: the first `size` entries after `after` that match, in id order.
 */
export class FilteredInventoryPages<Row> {
  private readonly shapes = new Map<string, ShapeStatements<Row>>();

  /**
   * `columns` is the SELECT list of a row (over `pets`); `reserved` the expression of what a pet has
   * reserved at `@now`; `shape` how the rows are read.
   */
  constructor(
    private readonly db: Database,
    private readonly columns: string,
    private readonly reserved: string,
    private readonly shape: PageShape<Row>,
  ) {}

  /** The first `size` entries after `after` (from the first when undefined) that `query` matches. */
  page(query: InventoryQuery, after: PetId | undefined, size: number, now: number): Row[] {
    const statements = this.statementsOf(query, after !== undefined);
    const params: PageParams = {
      size,
      now,
      ...(after === undefined ? {} : { after }),
      ...(query.maxAvailable === undefined ? {} : { max: query.maxAvailable }),
    };
    if (statements.walkEnd === undefined || statements.rest === undefined) return statements.first.all(params);
    const budget = Math.max(WALK_BUDGET_MIN, size * WALK_BUDGET_PER_ENTRY);
    const walked = statements.first.all({ ...params, budget });
    const found = this.shape.count(walked);
    if (found >= size) return walked;
    const [read, last] = statements.walkEnd.get({ ...params, budget }) as WalkEnd;
    if (read < budget || last === null) return walked;
    return walked.concat(statements.rest.all({ ...params, size: size - found, after: last }));
  }

  private statementsOf(query: InventoryQuery, hasAfter: boolean): ShapeStatements<Row> {
    const key = `${query.statuses?.join(',') ?? ''}|${query.maxAvailable !== undefined}|${hasAfter}`;
    let statements = this.shapes.get(key);
    if (statements === undefined) {
      statements = this.prepare(query, hasAfter);
      this.shapes.set(key, statements);
    }
    return statements;
  }

  private prepare(query: InventoryQuery, hasAfter: boolean): ShapeStatements<Row> {
    const after = hasAfter ? 'id > @after' : '1';
    const statuses = query.statuses?.map((status) => `'${status}'`).join(', ');
    const ofStatus = statuses === undefined ? '1' : `status IN (${statuses})`;
    const prepare = (rows: string): Statement<[PageParams], Row> =>
      this.db.prepare<[PageParams], Row>(this.shape.select(rows)).raw();
    if (query.maxAvailable === undefined) {
      // One walk of the status index for each status, at most a page each; their union's first page.
      const ids = (query.statuses ?? [])
        .map(
          (status) =>
            `SELECT id FROM (SELECT id FROM pets WHERE status = '${status}' AND ${after} ORDER BY id LIMIT @size)`,
        )
        .join(' UNION ALL ');
      return { first: prepare(`SELECT ${this.columns} FROM pets WHERE id IN (${ids}) ORDER BY id LIMIT @size`) };
    }
    // What is available checked exactly; `quantity - held` first, as the index has it, and as a pet
    // without holds (nearly every pet) needs nothing else.
    const lowStock = `quantity - held <= @max AND (held = 0 OR quantity - (${this.reserved}) <= @max)`;
    const walk = `SELECT * FROM pets WHERE ${after} ORDER BY id LIMIT @budget`;
    // With statuses, the index that holds each status's low stock apart: only the pets of both are read.
    const lowStockIndex = statuses === undefined ? 'pets_by_spare' : 'pets_by_status_spare';
    return {
      // The walked rows keep the table's name, so the columns' expressions read them as they read pets.
      first: prepare(
        `SELECT ${this.columns} FROM (${walk}) AS pets WHERE ${ofStatus} AND ${lowStock} ORDER BY id LIMIT @size`,
      ),
      walkEnd: this.db
        .prepare<[PageParams], WalkEnd>(
          `SELECT count(*), max(id) FROM (SELECT id FROM pets WHERE ${after} ORDER BY id LIMIT @budget)`,
        )
        .raw(),
      rest: prepare(
        `SELECT ${this.columns} FROM pets INDEXED BY ${lowStockIndex} WHERE id > @after AND ${ofStatus} AND ${lowStock} ORDER BY id LIMIT @size`,
      ),
    };
  }
}
