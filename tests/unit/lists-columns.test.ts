import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/adapters/memory/memory-adapters.js';
import { listsColumns } from '../../src/application/ports/inventory-repository.js';

describe('a store that lists by columns', () => {
  it('is one that declares listColumns; the in-memory store lists by items only', async () => {
    const { inventory } = createMemoryStorage();
    expect(listsColumns(inventory)).toBe(false);
    const columns = { petIds: [], quantities: [], reserved: [], statuses: [] };
    const byColumns = Object.assign(Object.create(inventory), {
      async *listColumns() {
        yield columns;
      },
    });
    expect(listsColumns(byColumns)).toBe(true);
  });
});
