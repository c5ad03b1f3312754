import type { NewPet, PetCatalog } from '../../application/ports/pet-catalog.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import type { Pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { FIRST_VERSION } from '../../domain/stock-write.js';
import type { MemoryStore } from './memory-store.js';

export class MemoryPetCatalog implements PetCatalog {
  constructor(private readonly store: MemoryStore) {}

  async get(id: PetId): Promise<Pet | undefined> {
    return this.store.pets.get(id)?.pet;
  }

  async addAll(pets: readonly NewPet[]): Promise<Result<number, DomainError<'duplicate_pet'>>> {
    const seen = new Set<PetId>();
    for (const p of pets) {
      if (seen.has(p.id) || this.store.pets.has(p.id)) {
        return fail(domainError('duplicate_pet', `a pet with id ${p.id} already exists`));
      }
      seen.add(p.id);
    }
    for (const p of pets) {
      const pet: Pet = {
        id: p.id,
        name: p.name,
        ...(p.category === undefined ? {} : { category: p.category }),
        photoUrls: p.photoUrls ?? [],
        tags: p.tags ?? [],
        status: p.status,
      };
      this.store.pets.set(p.id, { pet, quantity: p.quantity, version: FIRST_VERSION });
      this.store.insertPetId(p.id);
    }
    this.store.petsWritten();
    return ok(pets.length);
  }
}
