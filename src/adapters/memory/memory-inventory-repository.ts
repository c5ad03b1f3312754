import type { InventoryQuery, InventoryRepository } from '../../application/ports/inventory-repository.js';
import type { StockChangeLog, StockChangePage } from '../../application/ports/stock-change-log.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { StockCommand } from '../../domain/stock-command.js';
import { decideStockWrite, type StockDecision } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import type { MemoryStore, StoredPet } from './memory-store.js';

const CHUNK = 1_000;

const itemOf = (stored: StoredPet): InventoryItem => inventoryItem(stored.pet.id, stored.quantity, stored.pet.status);

const claimKey = (scope: string, key: string): string => `${scope}\u0000${key}`;

/**
 * Stock levels in process memory. Single-threaded JavaScript makes each write atomic: nothing else
 * runs between its read and its write, as nothing else would inside a store's transaction.
 */
export class MemoryInventoryRepository implements InventoryRepository, StockChangeLog {
  constructor(private readonly store: MemoryStore) {}

  async *list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    let index = this.store.firstIndexAfter(query.after);
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const ids = this.store.sortedIds.slice(index, index + Math.min(CHUNK, left));
      if (ids.length === 0) return;
      const chunk = ids.map((id) => itemOf(this.store.pets.get(id) as StoredPet));
      left -= ids.length;
      yield chunk;
      // Resume after the last id yielded, not at a position: the list may have changed meanwhile.
      index = this.store.firstIndexAfter(ids[ids.length - 1]);
    }
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    return this.entryOf(petId);
  }

  async stamp(): Promise<string> {
    return this.store.petsStamp();
  }

  async write(command: StockCommand): Promise<StockWriteResult> {
    const claim = command.idempotency;
    const firstId = this.store.changes.length + 1;
    return this.apply(
      decideStockWrite({
        command,
        entries: command.orders.map((order) => this.entryOf(order.petId)),
        claim:
          claim === undefined
            ? undefined
            : { stored: this.store.claims.get(claimKey(claim.scope, claim.key)), heldElsewhere: false },
        // Ids are positions plus one, so the next changes get the next positions.
        changeIds: command.orders.map((_, i) => BigInt(firstId + i)),
      }),
    );
  }

  /** Applies a decided write; nothing else runs meanwhile, which makes it atomic. */
  private apply({ result, written, claimed }: StockDecision): StockWriteResult {
    for (const { change, version } of written) {
      const stored = this.store.pets.get(change.after.petId) as StoredPet;
      stored.quantity = change.after.quantity;
      stored.pet = { ...stored.pet, status: change.after.status };
      stored.version = version;
      this.store.changes.push(change);
    }
    if (written.length > 0) this.store.petsWritten();
    if (claimed !== undefined) {
      const { claim, outcome } = claimed;
      this.store.claims.set(claimKey(claim.scope, claim.key), {
        fingerprint: claim.fingerprint,
        expiresAtMs: claim.expiresAtMs,
        outcome,
      });
    }
    return result;
  }

  private entryOf(petId: PetId): InventoryEntry | undefined {
    const stored = this.store.pets.get(petId);
    return stored === undefined ? undefined : { item: itemOf(stored), version: stored.version };
  }

  async forgetExpiredOutcomes(nowMs: number, max: number): Promise<number> {
    let forgotten = 0;
    for (const [key, claim] of this.store.claims) {
      if (forgotten >= max) break;
      if (claim.expiresAtMs > nowMs) continue;
      this.store.claims.delete(key);
      forgotten += 1;
    }
    return forgotten;
  }

  async history(petId: PetId, page: StockChangePage): Promise<readonly StockChange[] | undefined> {
    if (!this.store.pets.has(petId)) return undefined;
    const found: StockChange[] = [];
    // Ids are positions plus one, so a page starts just below `before` and walks back.
    const start =
      page.before === undefined
        ? this.store.changes.length
        : Math.min(Number(page.before) - 1, this.store.changes.length);
    for (let i = start - 1; i >= 0 && found.length < page.limit; i -= 1) {
      const change = this.store.changes[i] as StockChange;
      if (change.after.petId === petId) found.push(change);
    }
    return found;
  }
}
