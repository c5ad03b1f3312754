/**
 * Runs `step` (which handles at most about `batch` records and resolves to how many it did) until a
 * call handles fewer: a purge in small store calls, so that none holds the store for long. Resolves to
 * the total.
 */
export async function inBatches(step: (max: number) => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await step(batch);
    total += done;
    if (done < batch) return total;
  }
}
