import type { Database, Statement } from 'better-sqlite3';
import type { StockChangeLog } from '../../application/ports/stock-change-log.js';
import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { StockChange } from '../../domain/stock-change.js';

interface ChangeRow {
  readonly before_quantity: bigint;
  readonly before_status: string;
  readonly after_quantity: bigint;
  readonly after_status: string;
  readonly actor: string;
  readonly at_ms: bigint;
}

/** The `stock_changes` table, which SqliteInventoryRepository writes in each update's transaction. */
export class SqliteStockChangeLog implements StockChangeLog {
  private readonly ofPet: Statement<[bigint], ChangeRow>;

  constructor(db: Database) {
    // `seq` grows with every insert, so it orders a pet's changes as they were committed.
    this.ofPet = db.prepare(
      `SELECT before_quantity, before_status, after_quantity, after_status, actor, at_ms
       FROM stock_changes WHERE pet_id = ? ORDER BY seq`,
    );
  }

  async history(petId: PetId): Promise<readonly StockChange[]> {
    return this.ofPet.all(petId).map((row) => ({
      before: inventoryItem(petId, Number(row.before_quantity), row.before_status as PetStatus),
      after: inventoryItem(petId, Number(row.after_quantity), row.after_status as PetStatus),
      actor: row.actor,
      atMs: Number(row.at_ms),
    }));
  }
}
