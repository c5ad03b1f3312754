import { type DomainError, domainError } from '../../domain/errors.js';
import { isReservationId, type Reservation, reservationAt } from '../../domain/reservation.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { Clock } from '../ports/clock.js';
import type { InventoryRepository } from '../ports/inventory-repository.js';

/** getReservation: one reservation as it stands now (a held one past its time has expired). */
export class GetReservation {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: {
    readonly reservationId: string;
  }): Promise<Result<Reservation, DomainError<'reservation_not_found'>>> {
    const { reservationId } = input;
    const found = isReservationId(reservationId) ? await this.inventory.getReservation(reservationId) : undefined;
    if (found === undefined) {
      return fail(domainError('reservation_not_found', `no reservation has id ${reservationId}`));
    }
    return ok(reservationAt(found, this.clock.nowMs()));
  }
}
