import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { StockCommandRunner, StockWriteRequest } from '../stock-command-runner.js';

/** The batch's orders, each of another pet, and who sends it with which key (see StockWriteRequest). */
export type UpdateStockBatchInput = StockWriteRequest;

/**
 * batchUpdateInventory: sets or adjusts the stock of several pets in one write of the store, all or
 * none: when any order is refused, nothing is written and every refusal is answered. Each changed pet
 * gets one history entry; with an idempotency key the whole outcome is stored and replayed.
 */
export class UpdateStockBatch {
  constructor(private readonly writes: StockCommandRunner) {}

  execute(input: UpdateStockBatchInput): Promise<StockWriteResult> {
    return this.writes.run(input);
  }
}
