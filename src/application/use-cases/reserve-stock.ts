import { keyStanding } from '../../domain/api-key.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import type { PetId } from '../../domain/pet-id.js';
import { type Quantity, quantity } from '../../domain/quantity.js';
import { DEFAULT_HOLD_LIMITS, DEFAULT_TTL_SECONDS, type HoldLimits } from '../../domain/reservation.js';
import type {
  ReservationWriteFailure,
  ReservationWriteResult,
  WrittenReservation,
} from '../../domain/reservation-outcome.js';
import { fail, type Result } from '../../domain/result.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { Clock } from '../ports/clock.js';
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

/** A reserve's answer: the write's, or the refusal of a key revoked or ended while it was written. */
export type ReserveResult = Result<
  WrittenReservation,
  ReservationWriteFailure | DomainError<'unauthorized' | 'key_expired'>
>;

/** Where a reserve reads its key's standing after the write: the store itself, not a cache of it. */
export interface KeyStandingSource {
  readonly keys: ApiKeyStore;
  readonly clock: Clock;
}

/**
 * reserveInventory: holds some of a pet's available stock for a checkout, until it is committed,
 * released or expires, in one write of the store; more than is available is refused, so that concurrent
 * checkouts never hold more than there is. A key holds at most `limits.perKey` reservations at once,
 * each for at most `limits.ttlMs`, so that no key can set the stock aside for long (the core decides).
 *
 * With `standing`, a hold made is kept only if its key is still in use once it is stored: the key is
 * read from the store after the write, and a key revoked or ended by then has the hold released at
 * once and the request refused. A revocation releases its key's holds after it is stored, so every hold
 * is released by one or the other: stored before the revocation, the revocation's release finds it;
 * read after it, the reserve releases it itself. The key cache that authenticated the request (stale
 * for up to PETSTORE_KEY_CACHE_MS) no longer lets a revoked key hold stock.
 */
export class ReserveStock {
  constructor(
    private readonly writes: StockCommandRunner,
    private readonly limits: HoldLimits = DEFAULT_HOLD_LIMITS,
    private readonly standing?: KeyStandingSource,
  ) {}

  async execute(input: ReserveStockInput): Promise<ReserveResult> {
    const written = await this.reserve(input);
    if (!written.ok || written.value.reservation.state !== 'held' || this.standing === undefined) return written;
    const { keys, clock } = this.standing;
    const key = await keys.findById(input.actor);
    // An actor the key store does not know (an embedder's own) keeps its holds, as the purge leaves them.
    const standing = key === undefined ? 'active' : keyStanding(key, clock.nowMs());
    if (standing === 'active') return written;
    await this.writes.runReservation({
      reservation: { kind: 'release', reservationId: written.value.reservation.id },
      actor: input.actor,
    });
    return standing === 'revoked'
      ? fail(domainError('unauthorized', 'the API key was revoked while the reservation was made; it was released'))
      : fail(domainError('key_expired', 'the API key expired while the reservation was made; it was released'));
  }

  private reserve(input: ReserveStockInput): Promise<ReservationWriteResult> {
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
