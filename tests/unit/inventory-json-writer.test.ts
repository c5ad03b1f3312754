import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { inventoryJsonBody } from '../../src/adapters/http/inventory-stream.js';
import { columnsJson, itemJson, itemsJson } from '../../src/adapters/http/json-writer.js';
import type { InventoryColumns } from '../../src/application/ports/inventory-repository.js';
import { availableOf, type InventoryItem, inventoryItem } from '../../src/domain/inventory-item.js';
import { PET_STATUSES } from '../../src/domain/pet-status.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const QUANTITY_MAX = 2 ** 31 - 1;

/**
 * An item's JSON as JSON.stringify writes its fields; the petId (a bigint, which JSON.stringify cannot
 * write) goes in as its exact digits in place of a marker.
 */
const stringified = (item: InventoryItem): string =>
  JSON.stringify({
    petId: '#',
    quantity: item.quantity,
    reserved: item.reserved,
    available: availableOf(item),
    status: item.status,
  }).replace('"#"', String(item.petId));

/** The columns of `items`, as a store that lists by columns answers them. */
const columnsOf = (items: readonly InventoryItem[]): InventoryColumns => ({
  petIds: items.map((item) => String(item.petId)),
  quantities: items.map((item) => item.quantity),
  reserved: items.map((item) => item.reserved),
  statuses: items.map((item) => item.status),
});

// Every status with int64 ids at both ends, nothing held and something held (all of it too), and the
// quantities on both sides of the kept tails (below 1,024) up to the largest.
const EDGES: readonly InventoryItem[] = [INT64_MIN, -1n, 0n, 1n, 2n ** 53n + 1n, INT64_MAX - 1n, INT64_MAX].flatMap(
  (id, i) =>
    [0, 1, 99, 1_023, 1_024, 65_536, QUANTITY_MAX].flatMap((quantity, j) =>
      PET_STATUSES.flatMap((status) =>
        [0, 1, quantity].filter((held) => held <= quantity).map((held) => inventoryItem(id, quantity, status, held)),
      ).filter((_, k) => (i + j + k) % 2 === 0 || i === 0),
    ),
);

describe('the JSON of an inventory list written from columns', () => {
  it('is, entry for entry, what JSON.stringify writes of the domain items', () => {
    for (const item of EDGES) {
      const expected = stringified(item);
      expect(itemJson(item)).toBe(expected);
      expect(columnsJson(columnsOf([item]))).toBe(expected);
    }
  });

  it('writes a chunk as the items do, comma-separated, however often a kept tail is reused', () => {
    const chunk = [...EDGES, ...EDGES.slice().reverse(), ...EDGES];
    const expected = chunk.map(stringified).join(',');
    expect(columnsJson(columnsOf(chunk))).toBe(expected);
    expect(itemsJson(chunk)).toBe(expected);
    expect(JSON.parse(`[${expected.replace(/"petId":(-?\d+)/g, '"petId":"$1"')}]`)).toHaveLength(chunk.length);
  });

  it('writes nothing for a chunk of no entry', () => {
    expect(columnsJson(columnsOf([]))).toBe('');
  });

  it('streams one JSON array of several chunks as its UTF-8 bytes, one chunk as a string, skipping empty ones', async () => {
    const chunks = [EDGES.slice(0, 5), [], EDGES.slice(5, 9), EDGES.slice(9)];
    async function* texts(of: readonly (readonly InventoryItem[])[]): AsyncGenerator<string> {
      for (const chunk of of) yield columnsJson(columnsOf(chunk));
    }
    const expected = `[${EDGES.map(stringified).join(',')}]`;
    const streamed = await inventoryJsonBody(texts(chunks));
    if (!(streamed instanceof Readable)) throw new Error('a list of several chunks was not streamed');
    const read: Buffer[] = [];
    for await (const piece of streamed) read.push(piece as Buffer);
    expect(Buffer.concat(read).equals(Buffer.from(expected, 'utf8'))).toBe(true);
    expect(await inventoryJsonBody(texts([[], EDGES, []]))).toBe(expected);
    expect(await inventoryJsonBody(texts([[]]))).toBe('[]');
  });
});
