import { type DomainError, domainError } from '../../domain/errors.js';
import type { PetId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { StockChangeLog } from '../ports/stock-change-log.js';

export interface ListStockChangesInput {
  readonly petId: PetId;
  /** At most this many changes. */
  readonly limit: number;
  /** Only changes older than this change id (the previous page's last). */
  readonly before?: bigint;
}

/** listStockChanges: one pet's stock history, newest first, a page at a time. */
export class ListStockChanges {
  constructor(private readonly changes: StockChangeLog) {}

  async execute(input: ListStockChangesInput): Promise<Result<readonly StockChange[], DomainError<'pet_not_found'>>> {
    const page = await this.changes.history(input.petId, {
      limit: input.limit,
      ...(input.before === undefined ? {} : { before: input.before }),
    });
    if (page === undefined) return fail(domainError('pet_not_found', `no pet has id ${input.petId}`));
    return ok(page);
  }
}
