import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import { DEFAULT_TTL_SECONDS } from '../../domain/reservation.js';
import type { ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { ReservationWriteRequest, StockCommandRunner } from '../stock-command-runner.js';

export interface ReserveStockInput {
  readonly petId: PetId;
  readonly quantity: Quantity;
  /** How long the hold lasts, in seconds (see `isTtlSeconds`); DEFAULT_TTL_SECONDS when absent. */
  readonly ttlSeconds?: number;
  /** Who reserves (an API key id); also the idempotency scope. */
  readonly actor: string;
  /** Reserve only when the entry is at one of these versions (If-Match); any version when absent. */
  readonly ifVersion?: readonly number[];
  readonly idempotency?: ReservationWriteRequest['idempotency'];
}

/**
 * reserveInventory: holds some of a pet's available stock for a checkout, until it is committed,
 * released or expires, in one write of the store; more than is available is refused, so that concurrent
 * checkouts never hold more than there is.
 */
export class ReserveStock {
  constructor(private readonly writes: StockCommandRunner) {}

  execute(input: ReserveStockInput): Promise<ReservationWriteResult> {
    const { petId, quantity, ifVersion, actor, idempotency } = input;
    return this.writes.runReservation({
      reservation: {
        kind: 'reserve',
        petId,
        quantity,
        ttlMs: (input.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1_000,
        ...(ifVersion === undefined ? {} : { ifVersion }),
      },
      actor,
      ...(idempotency === undefined ? {} : { idempotency }),
    });
  }
}
