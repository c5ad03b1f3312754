import type { PetId } from '../../domain/pet-id.js';
import { type Quantity, quantity } from '../../domain/quantity.js';
import { DEFAULT_HOLD_LIMITS, DEFAULT_TTL_SECONDS, type HoldLimits } from '../../domain/reservation.js';
import type { ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { ReservationWriteRequest, StockCommandRunner } from '../stock-command-runner.js';
import { type ExpectedVersion, expectedVersionsOf } from './update-stock.js';

export interface ReserveStockInput extends ExpectedVersion {
  readonly petId: PetId;
  /** How much to hold: a whole number from 0 to QUANTITY_MAX, plain (`2`) or made by `quantity(2)`. */
  readonly quantity: Quantity | number;
  /**
   * How long the hold lasts, in seconds (see `isTtlSeconds`); when absent, DEFAULT_TTL_SECONDS or the
   * limit's length, whichever is shorter.
   */
  readonly ttlSeconds?: number;
  /** Who reserves (an API key id); also the idempotency scope. */
  readonly actor: string;
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

  async execute(input: ReserveStockInput): Promise<ReservationWriteResult> {
    const { petId, actor, idempotency } = input;
    const ifVersion = expectedVersionsOf(input);
    return this.writes.runReservation({
      reservation: {
        kind: 'reserve',
        petId,
        // Throws a RangeError on a number that is no stock count, as quantity() always did.
        quantity: quantity(input.quantity),
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
