import type { Database, Statement } from 'better-sqlite3';
import type { StockChangeLog, StockChangePage } from '../../application/ports/stock-change-log.js';
import { stockLevel } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { changeKindOf, type StockChange } from '../../domain/stock-change.js';

export type ChangeRow = readonly [
  seq: bigint,
  beforeQuantity: bigint,
  beforeStatus: string,
  afterQuantity: bigint,
  afterStatus: string,
  actor: string,
  atMs: bigint,
  kind: string,
  reason: string | null,
];

export const COLUMNS = 'seq, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind, reason';

/** The largest change id: a page with no `before` starts below it. */
const SEQ_MAX = 2n ** 63n - 1n;

/** The `stock_changes` table, which SqliteInventoryRepository writes in each write's transaction. */
export class SqliteStockChangeLog implements StockChangeLog {
  private readonly page: Statement<[bigint, bigint, number], ChangeRow>;
  private readonly petExists: Statement<[bigint], bigint>;
  private readonly pageOfPet: (petId: bigint, before: bigint, limit: number) => readonly ChangeRow[] | undefined;

  constructor(db: Database) {
    // `seq` grows with every insert, so it orders a pet's changes as they were committed; the index on
    // (pet_id, seq) serves a page by walking back from `before`.
    this.page = db
      .prepare<[bigint, bigint, number], ChangeRow>(
        `SELECT ${COLUMNS} FROM stock_changes WHERE pet_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
      )
      .raw();
    this.petExists = db.prepare<[bigint], bigint>('SELECT 1 FROM pets WHERE id = ?').pluck();
    // One read transaction, so the pet's existence and its page are of the same moment.
    this.pageOfPet = db.transaction((petId: bigint, before: bigint, limit: number) =>
      this.petExists.get(petId) === undefined ? undefined : this.page.all(petId, before, limit),
    );
  }

  async history(petId: PetId, page: StockChangePage): Promise<readonly StockChange[] | undefined> {
    const rows = this.pageOfPet(petId, page.before ?? SEQ_MAX, page.limit);
    return rows?.map((row) => ({
      id: row[0],
      kind: changeKindOf(row[7]),
      before: stockLevel(petId, Number(row[1]), row[2] as PetStatus),
      after: stockLevel(petId, Number(row[3]), row[4] as PetStatus),
      actor: row[5],
      atMs: Number(row[6]),
      reason: row[8],
    }));
  }
}
