import type { DuplicatePet, NewPet, PetCatalog, StockedPet } from '../../application/ports/pet-catalog.js';
import { domainError } from '../../domain/errors.js';
import { type Pet, pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { FIRST_VERSION } from '../../domain/stock-write.js';
import type { MemoryStore } from './memory-store.js';

/** As many pets a chunk of an export holds as the SQLite adapter's do. */
const EXPORT_CHUNK = 1_000;

export class MemoryPetCatalog implements PetCatalog {
  constructor(private readonly store: MemoryStore) {}

  async get(id: PetId): Promise<Pet | undefined> {
    return this.store.pets.get(id)?.pet;
  }

  addAll(pets: readonly NewPet[]): Promise<Result<number, DuplicatePet>> {
    return this.addBatches([pets]);
  }

  addStream(batches: AsyncIterable<readonly NewPet[]>): Promise<Result<number, DuplicatePet>> {
    return this.addBatches(batches);
  }

  async *listWithStock(): AsyncIterable<readonly StockedPet[]> {
    let after: PetId | undefined;
    for (;;) {
      // Found again after every chunk, so pets added meanwhile never shift what is handed out.
      const from = this.store.firstIndexAfter(after);
      const ids = this.store.sortedIds.slice(from, from + EXPORT_CHUNK);
      if (ids.length === 0) return;
      yield ids.map((id) => {
        const stored = this.store.pets.get(id);
        if (stored === undefined) throw new Error(`pet ${id} is listed but not stored`);
        return { ...stored.pet, quantity: stored.quantity };
      });
      after = ids[ids.length - 1];
    }
  }

  /** Stages every pet first, so that a refusal or a throw anywhere in the stream writes nothing. */
  private async addBatches(
    batches: AsyncIterable<readonly NewPet[]> | Iterable<readonly NewPet[]>,
  ): Promise<Result<number, DuplicatePet>> {
    const staged = new Map<PetId, NewPet>();
    for await (const batch of batches) {
      for (const p of batch) {
        if (staged.has(p.id)) return fail(domainError('duplicate_pet', `pet id ${p.id} is given twice`));
        staged.set(p.id, p);
      }
    }
    const entries = [...staged.values()].map((p) => ({ pet: pet(p), quantity: p.quantity }));
    const clash = entries.find((e) => this.store.pets.has(e.pet.id));
    if (clash !== undefined) return fail(domainError('duplicate_pet', `a pet with id ${clash.pet.id} already exists`));
    for (const entry of entries) {
      this.store.pets.set(entry.pet.id, { ...entry, version: FIRST_VERSION, held: 0 });
      this.store.insertPetId(entry.pet.id);
    }
    this.store.petsWritten();
    return ok(entries.length);
  }
}
