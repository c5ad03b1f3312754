import type { ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { ReservationWriteRequest, StockCommandRunner } from '../stock-command-runner.js';

export interface SettleReservationInput {
  readonly reservationId: string;
  /** Who commits or releases (an API key id): any key may settle any reservation of the store. */
  readonly actor: string;
  readonly idempotency?: ReservationWriteRequest['idempotency'];
}

const settle = (
  writes: StockCommandRunner,
  kind: 'commit' | 'release',
  { reservationId, actor, idempotency }: SettleReservationInput,
): Promise<ReservationWriteResult> =>
  writes.runReservation({
    reservation: { kind, reservationId },
    actor,
    ...(idempotency === undefined ? {} : { idempotency }),
  });

/**
 * commitReservation: takes a held reservation's quantity from the stock on hand, with one history
 * entry, in one write of the store. A repeat answers the same; a released or expired one is refused.
 */
export class CommitReservation {
  constructor(private readonly writes: StockCommandRunner) {}

  execute(input: SettleReservationInput): Promise<ReservationWriteResult> {
    return settle(this.writes, 'commit', input);
  }
}

/**
 * releaseReservation: gives a held reservation's quantity back to what is available. A repeat, or the
 * release of an expired one, answers the reservation as it stands; a committed one is refused.
 */
export class ReleaseReservation {
  constructor(private readonly writes: StockCommandRunner) {}

  execute(input: SettleReservationInput): Promise<ReservationWriteResult> {
    return settle(this.writes, 'release', input);
  }
}
