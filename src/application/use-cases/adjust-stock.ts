import type { StockCommandRunner } from '../stock-command-runner.js';
import { type OnePetWriteInput, type OnePetWriteResult, writeOnePet } from './update-stock.js';

export interface AdjustStockInput extends OnePetWriteInput {
  /** How much to add (or, negative, take away): see `isDelta`. */
  readonly delta: number;
}

/**
 * adjustInventory: moves the stock of one pet by a delta, in one write of the store, so that concurrent
 * adjustments never lose one another; a result below 0 or above the maximum is refused and nothing is
 * written. If-Match and an idempotency key work as for UpdateStock.
 */
export class AdjustStock {
  constructor(private readonly writes: StockCommandRunner) {}

  execute(input: AdjustStockInput): Promise<OnePetWriteResult> {
    return writeOnePet(this.writes, { kind: 'adjust', delta: input.delta }, input);
  }
}
