import type { Readable } from 'node:stream';
import { listTag } from './entity-tags.js';
import { inventoryJsonBody } from './inventory-stream.js';

/**
 * The body of the last whole inventory list, with the store stamp it was read at and that stamp's
 * entity tag. Two equal stamps mean the same list, so while the stamp holds, the body is sent again
 * without reading the store or writing JSON, and the tag without being written again. The body is kept
 * as the bytes sent (the list's JSON is ASCII, see inventory-stream.ts): Koa sends a Buffer as it is,
 * where a string costs a count of its UTF-8 bytes and an encoding on every answer. Only a list that came
 * in one chunk is kept (inventoryJsonBody answers those as a string): a longer one is streamed, never
 * held whole, so this holds at most one chunk's text.
 */
export class InventoryBodyCache {
  private stamp: string | undefined;
  private tagOfStamp = '';
  private body: Buffer | undefined;

  /** `pieces` reads the whole list afresh, as JSON text a chunk (see inventoryJsonBody). */
  constructor(private readonly pieces: () => AsyncIterable<string>) {}

  /** The weak entity tag of the list at `stamp` (listTag), written once per stamp. */
  tag(stamp: string): string {
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      this.tagOfStamp = listTag(stamp);
      this.body = undefined;
    }
    return this.tagOfStamp;
  }

  /**
   * The JSON array of every entry: the kept bytes while the store is unchanged, else a fresh read.
   * `stamp` must be read before this call (the caller also tags the answer with it): a write after that
   * point moves the stamp, so a body that might have missed it is never taken for a later stamp's state.
   */
  /** The kept bytes of the list at `stamp`, when they are kept: no promise for the usual answer. */
  kept(stamp: string): Buffer | undefined {
    return stamp === this.stamp ? this.body : undefined;
  }

  async read(stamp: string): Promise<Buffer | Readable> {
    if (stamp === this.stamp && this.body !== undefined) return this.body;
    const body = await inventoryJsonBody(this.pieces());
    if (typeof body !== 'string') return body;
    const bytes = Buffer.from(body, 'latin1');
    // The tag's memo and the body's go together: a later stamp read meanwhile (a write landed during
    // this read) keeps its own tag, and this older body is not kept for it.
    if (stamp === this.stamp || this.stamp === undefined) {
      this.stamp = stamp;
      this.tagOfStamp = listTag(stamp);
      this.body = bytes;
    }
    return bytes;
  }
}
