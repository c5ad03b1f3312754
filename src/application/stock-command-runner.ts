import type { ReservationOrder, ReservationWriteResult } from '../domain/reservation-outcome.js';
import { fail } from '../domain/result.js';
import type { IdempotencyClaim, StockOrder } from '../domain/stock-command.js';
import { claimAnswer } from '../domain/stock-decision.js';
import type { KEY_IN_USE, KEY_REUSED, StockWriteResult } from '../domain/stock-outcome.js';
import type { Clock } from './ports/clock.js';
import type { InventoryRepository } from './ports/inventory-repository.js';

/** A stock write as a use case asks for it; the runner adds the time and the claim's scope and expiry. */
export interface StockWriteRequest {
  readonly orders: readonly StockOrder[];
  /** Who makes the change (an API key id), for the stock-change record; also the idempotency scope. */
  readonly actor: string;
  /**
   * Makes a retry safe: a second call with the same actor and key gets the first call's outcome and
   * writes nothing. `fingerprint` names the request; the same key with another fingerprint is refused.
   */
  readonly idempotency?: { readonly key: string; readonly fingerprint: string };
}

/** A reservation write as a use case asks for it (see StockWriteRequest). */
export interface ReservationWriteRequest {
  readonly reservation: ReservationOrder;
  readonly actor: string;
  readonly idempotency?: StockWriteRequest['idempotency'];
}

export interface StockCommandOptions {
  /** How long the outcome of a keyed write is kept for retries. */
  readonly idempotencyTtlMs: number;
}

/** The answer to a key this process is still writing. */
type KeyRefused = { readonly ok: false; readonly error: typeof KEY_IN_USE | typeof KEY_REUSED };

/** How long an outcome is kept unless configured: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;

/**
 * Sends the stock writes of every write use case to the store as commands, stamped with the clock's
 * time. One per core, so that the keys this process is still writing are known across all of them.
 */
export class StockCommandRunner {
  /**
   * Keys whose first request this process is still writing. The store answers retries once the first
   * outcome is stored; this set answers the retries that arrive before, without queueing them behind it.
   */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly inventory: InventoryRepository,
    private readonly clock: Clock,
    private readonly options: StockCommandOptions = { idempotencyTtlMs: DEFAULT_IDEMPOTENCY_TTL_MS },
  ) {}

  run(request: StockWriteRequest): Promise<StockWriteResult> {
    const { orders, actor } = request;
    // Two literals rather than a spread of the optional claim: a spread builds its object on V8's slow path.
    return this.claimed(request, (atMs, claim) =>
      this.inventory.write(claim === undefined ? { orders, actor, atMs } : { orders, actor, atMs, idempotency: claim }),
    );
  }

  /** A reservation write, stamped and claimed as a stock write is. */
  runReservation(request: ReservationWriteRequest): Promise<ReservationWriteResult> {
    const { reservation, actor } = request;
    return this.claimed(request, (atMs, claim) =>
      this.inventory.writeReservation({
        reservation,
        actor,
        atMs,
        ...(claim === undefined ? {} : { idempotency: claim }),
      }),
    );
  }

  /**
   * Runs `write` at the clock's time with the request's claim, if any: a key this process is still
   * writing is answered "in use" at once, without queueing behind its first request.
   */
  private claimed<R>(
    request: { readonly actor: string; readonly idempotency?: StockWriteRequest['idempotency'] },
    write: (atMs: number, claim: IdempotencyClaim | undefined) => Promise<R>,
  ): Promise<R | KeyRefused> {
    const atMs = this.clock.nowMs();
    const { actor, idempotency } = request;
    // Not async: a write without a key is the store's promise itself, with no frame of its own.
    if (idempotency === undefined) return write(atMs, undefined);
    return this.keyed(actor, idempotency, atMs, write);
  }

  /** `claimed` with a key: at most one write of it at a time in this process. */
  private async keyed<R>(
    actor: string,
    idempotency: NonNullable<StockWriteRequest['idempotency']>,
    atMs: number,
    write: (atMs: number, claim: IdempotencyClaim | undefined) => Promise<R>,
  ): Promise<R | KeyRefused> {
    const claim: IdempotencyClaim = {
      scope: actor,
      key: idempotency.key,
      fingerprint: idempotency.fingerprint,
      expiresAtMs: atMs + this.options.idempotencyTtlMs,
    };
    const held = `${claim.scope}\u0000${claim.key}`;
    if (this.inFlight.has(held)) {
      const answer = claimAnswer({ stored: undefined, heldElsewhere: true }, claim, atMs);
      if (answer !== undefined && 'error' in answer) return fail(answer.error);
    }
    this.inFlight.add(held);
    try {
      return await write(atMs, claim);
    } finally {
      this.inFlight.delete(held);
    }
  }
}
