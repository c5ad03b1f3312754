import type { PetId } from './pet-id.js';
import type { PetStatus } from './pet-status.js';

/** A pet as the store describes it (the public Petstore shape). Its stock is an InventoryItem. */
export interface Pet {
  readonly id: PetId;
  readonly name: string;
  readonly category?: { readonly id: bigint; readonly name: string };
  readonly photoUrls: readonly string[];
  readonly tags: readonly { readonly id: bigint; readonly name: string }[];
  readonly status: PetStatus;
}
