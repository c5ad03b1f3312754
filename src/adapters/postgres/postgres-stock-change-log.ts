import type { StockChangeLog, StockChangePage } from '../../application/ports/stock-change-log.js';
import { stockLevel } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { changeKindOf, type StockChange } from '../../domain/stock-change.js';
import type { PostgresDatabase } from './postgres-database.js';

export type PgChangeRow = [
  id: bigint,
  beforeQuantity: number,
  beforeStatus: string,
  afterQuantity: number,
  afterStatus: string,
  actor: string,
  atMs: bigint,
  kind: string,
  reason: string | null,
];

/** The `stock_changes` table, which PostgresInventoryRepository writes in each write's transaction. */
export class PostgresStockChangeLog implements StockChangeLog {
  constructor(private readonly db: PostgresDatabase) {}

  /** Newest first by id, which grows with every change; a walk of the (pet_id, id) index backwards. */
  async history(petId: PetId, page: StockChangePage): Promise<readonly StockChange[] | undefined> {
    const rows = await this.db.rows<PgChangeRow>(
      `SELECT id, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind, reason
       FROM stock_changes WHERE pet_id = $1 AND ($2::bigint IS NULL OR id < $2)
       ORDER BY id DESC LIMIT $3`,
      [petId, page.before ?? null, page.limit],
    );
    if (rows.length === 0) {
      const [exists] = await this.db.rows<[number]>('SELECT 1 FROM pets WHERE id = $1', [petId]);
      if (exists === undefined) return undefined;
    }
    return rows.map(([id, beforeQuantity, beforeStatus, afterQuantity, afterStatus, actor, atMs, kind, reason]) => ({
      id,
      kind: changeKindOf(kind),
      before: stockLevel(petId, beforeQuantity, beforeStatus as PetStatus),
      after: stockLevel(petId, afterQuantity, afterStatus as PetStatus),
      actor,
      atMs: Number(atMs),
      reason,
    }));
  }
}
