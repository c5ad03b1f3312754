import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import { DEFAULT_HOLD_LIMITS, DEFAULT_TTL_SECONDS, type HoldLimits } from '../../domain/reservation.js';
import type { ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { ReservationWriteRequest, StockCommandRunner } from '../stock-command-runner.js';

export interface ReserveStockInput {
  readonly petId: PetId;
  readonly quantity: Quantity;
  /**
   * How long the hold lasts, in seconds (see `isTtlSeconds`); when absent, DEFAULT_TTL_SECONDS or the
   * limit's length, whichever is shorter.
   */
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
 * checkouts never hold more than there is. A key holds at most `limits.perKey` reservations at once,
 * each for at most `limits.ttlMs`, so that no key can set the stock aside for long (the core decides).
 */
export class ReserveStock {
  constructor(
    private readonly writes: StockCommandRunner,
    private readonly limits: HoldLimits = DEFAULT_HOLD_LIMITS,
  ) {}

  execute(input: ReserveStockInput): Promise<ReservationWriteResult> {
    const { petId, quantity, ifVersion, actor, idempotency } = input;
    return this.writes.runReservation({
      reservation: {
        kind: 'reserve',
        petId,
        quantity,
        // Unasked, a hold lasts the default, or the limit when that is shorter.
        ttlMs:
          input.ttlSeconds === undefined
            ? Math.min(DEFAULT_TTL_SECONDS * 1_000, this.limits.ttlMs)
            : input.ttlSeconds * 1_000,
        limits: this.limits,
        ...(ifVersion === undefined ? {} : { ifVersion }),
      },
      actor,
      ...(idempotency === undefined ? {} : { idempotency }),
    });
  }
}
