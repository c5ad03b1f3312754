import type {
  InventoryQuery,
  InventoryRepository,
  StockWrite,
  StockWriteResult,
} from '../../application/ports/inventory-repository.js';
import type { StockChangeLog, StockChangePage } from '../../application/ports/stock-change-log.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { StockChange } from '../../domain/stock-change.js';
import { type InventoryEntry, planStockWrite } from '../../domain/stock-write.js';
import { answerFromClaim, outcomeOf, resultOf } from '../shared/stock-outcome.js';
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
    const stored = this.store.pets.get(petId);
    return stored === undefined ? undefined : { item: itemOf(stored), version: stored.version };
  }

  async stamp(): Promise<string> {
    return this.store.petsStamp();
  }

  async write(command: StockWrite): Promise<StockWriteResult> {
    const claim = command.idempotency;
    if (claim !== undefined) {
      const answer = answerFromClaim(this.store.claims.get(claimKey(claim.scope, claim.key)), claim, command.atMs);
      if (answer !== undefined) return answer;
    }
    const stored = this.store.pets.get(command.petId);
    const current = stored === undefined ? undefined : { item: itemOf(stored), version: stored.version };
    const plan = planStockWrite(current, command.quantity, command.ifVersion);
    let changeId: bigint | undefined;
    if (plan.kind === 'write' && stored !== undefined) {
      stored.quantity = plan.after.quantity;
      stored.pet = { ...stored.pet, status: plan.after.status };
      stored.version = plan.version;
      this.store.petsWritten();
      changeId = BigInt(this.store.changes.length + 1);
    }
    const outcome = outcomeOf(plan, command, changeId);
    if (outcome.kind === 'changed') this.store.changes.push(outcome.change);
    if (claim !== undefined) {
      this.store.claims.set(claimKey(claim.scope, claim.key), {
        fingerprint: claim.fingerprint,
        expiresAtMs: claim.expiresAtMs,
        outcome,
      });
    }
    return resultOf(outcome, false);
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
