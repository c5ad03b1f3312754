import { type DomainError, domainError } from '../../domain/errors.js';
import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import type { Clock } from '../ports/clock.js';
import type { InventoryRepository, StockWriteFailure } from '../ports/inventory-repository.js';

export interface UpdateStockInput {
  readonly petId: PetId;
  readonly quantity: Quantity;
  /** Who makes the change (an API key id), for the stock-change record; also the idempotency scope. */
  readonly actor: string;
  /** Write only when the entry is at one of these versions (If-Match); any version when absent. */
  readonly ifVersion?: readonly number[];
  /**
   * Makes a retry safe: a second call with the same actor and key gets the first call's outcome and
   * writes nothing. `fingerprint` names the request; the same key with another fingerprint is refused.
   */
  readonly idempotency?: { readonly key: string; readonly fingerprint: string };
}

/** The entry as the write left it, and whether this answer is the replay of an earlier one. */
export interface UpdatedStock {
  readonly entry: InventoryEntry;
  readonly replayed: boolean;
}

export type UpdateStockError =
  | (DomainError<'pet_not_found'> & { readonly replayed: boolean })
  | (DomainError<'precondition_failed'> & { readonly currentVersion: number; readonly replayed: boolean })
  | DomainError<'idempotency_key_reused' | 'idempotency_key_in_use'>;

export interface UpdateStockOptions {
  /** How long the outcome of a keyed write is kept for retries. */
  readonly idempotencyTtlMs: number;
}

/** How long an outcome is kept unless configured: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;

const IN_USE = domainError(
  'idempotency_key_in_use',
  'a request with this Idempotency-Key is still being processed; retry once it has been answered',
);

function failureOf(input: UpdateStockInput, failure: StockWriteFailure): UpdateStockError {
  switch (failure.code) {
    case 'pet_not_found':
      return { ...domainError('pet_not_found', `no pet has id ${input.petId}`), replayed: failure.replayed };
    case 'version_mismatch':
      return {
        ...domainError(
          'precondition_failed',
          `the stock of pet ${input.petId} is at version ${failure.currentVersion}, not the one If-Match names; read it again`,
        ),
        currentVersion: failure.currentVersion,
        replayed: failure.replayed,
      };
    case 'idempotency_key_reused':
      return domainError(
        'idempotency_key_reused',
        'this Idempotency-Key was already used on another request; use a new key for a new request',
      );
    case 'idempotency_key_in_use':
      return IN_USE;
  }
}

/**
 * updateInventory: sets the stock of one pet, moves its status by the domain rule and records the
 * change, in one write of the store. With `ifVersion` the write is conditional; with an idempotency key
 * it happens at most once however often it is retried.
 */
export class UpdateStock {
  /**
   * Keys whose first request this process is still writing. The store answers retries once the first
   * outcome is stored; this set answers the retries that arrive before, without queueing them behind it.
   */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly inventory: InventoryRepository,
    private readonly clock: Clock,
    private readonly options: UpdateStockOptions = { idempotencyTtlMs: DEFAULT_IDEMPOTENCY_TTL_MS },
  ) {}

  async execute(input: UpdateStockInput): Promise<Result<UpdatedStock, UpdateStockError>> {
    const atMs = this.clock.nowMs();
    const claim =
      input.idempotency === undefined
        ? undefined
        : {
            scope: input.actor,
            key: input.idempotency.key,
            fingerprint: input.idempotency.fingerprint,
            expiresAtMs: atMs + this.options.idempotencyTtlMs,
          };
    const held = claim === undefined ? undefined : `${claim.scope}\u0000${claim.key}`;
    if (held !== undefined) {
      if (this.inFlight.has(held)) return fail(IN_USE);
      this.inFlight.add(held);
    }
    try {
      const result = await this.inventory.write({
        petId: input.petId,
        quantity: input.quantity,
        actor: input.actor,
        atMs,
        ...(input.ifVersion === undefined ? {} : { ifVersion: input.ifVersion }),
        ...(claim === undefined ? {} : { idempotency: claim }),
      });
      if (!result.ok) return fail(failureOf(input, result.error));
      const { change, version, replayed } = result.value;
      return ok({ entry: { item: change.after, version }, replayed });
    } finally {
      if (held !== undefined) this.inFlight.delete(held);
    }
  }
}
