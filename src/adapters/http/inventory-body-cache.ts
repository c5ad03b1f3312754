import type { Readable } from 'node:stream';
import { inventoryJsonBody } from './inventory-stream.js';

/**
 * The body of the last whole inventory list, with the store stamp it was read at. Two equal
 * stamps mean the same list, so while the stamp holds, the body is sent again without reading
 * the store or writing JSON. Only a list that came in one chunk is kept (inventoryJsonBody answers those
 * as a string): a longer one is streamed, never held whole, so this holds at most one chunk's text.
 */
export class InventoryBodyCache {
  private stamp: string | undefined;
  private body = '';

  /** `pieces` reads the whole list afresh, as JSON text a chunk (see inventoryJsonBody). */
  constructor(private readonly pieces: () => AsyncIterable<string>) {}

  /**
   * The JSON array of every entry: the kept text while the store is unchanged, else a fresh read.
   * `stamp` must be read before this call (the caller also tags the answer with it): a write after that
   * point moves the stamp, so a body that might have missed it is never taken for a later stamp's state.
   */
  async read(stamp: string): Promise<string | Readable> {
    if (stamp === this.stamp) return this.body;
    const body = await inventoryJsonBody(this.pieces());
    if (typeof body === 'string') {
      this.stamp = stamp;
      this.body = body;
    }
    return body;
  }
}
