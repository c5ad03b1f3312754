import type { Readable } from 'node:stream';
import type { ListInventory } from '../../application/use-cases/list-inventory.js';
import { inventoryJsonBody } from './inventory-stream.js';

/**
 * The body of the last whole inventory list, with the store revision it was read at. Two equal
 * revisions mean the same list, so while the revision holds, the body is sent again without reading
 * the store or writing JSON. Only a list that came in one chunk is kept (inventoryJsonBody answers those
 * as a string): a longer one is streamed, never held whole, so this holds at most one chunk's text.
 */
export class InventoryBodyCache {
  private revision: string | undefined;
  private body = '';

  constructor(private readonly listInventory: ListInventory) {}

  /** The JSON array of every entry: the kept text while the store is unchanged, else a fresh read. */
  async read(): Promise<string | Readable> {
    // Read before the list: a write after this point moves the revision, so a body that might have
    // missed it is never taken for the state of a later revision.
    const revision = this.listInventory.revision();
    if (revision === this.revision) return this.body;
    const body = await inventoryJsonBody(this.listInventory.execute());
    if (typeof body === 'string') {
      this.revision = revision;
      this.body = body;
    }
    return body;
  }
}
