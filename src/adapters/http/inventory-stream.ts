import { Readable } from 'node:stream';
import type { InventoryColumns } from '../../application/ports/inventory-repository.js';
import type { InventoryItem } from '../../domain/inventory-item.js';
import { columnsJson, itemsJson } from './json-writer.js';

/**
 * Each chunk of `list` as JSON text written by `write`, skipping those it writes as nothing. It holds
 * text, never a chunk, across a yield: a chunk kept while its text is written would outlive
 * young-generation collections and be promoted, and a list of a million pets would then swell the old
 * space.
 */
async function* pieces<T>(list: AsyncIterable<T>, write: (chunk: T) => string): AsyncGenerator<string> {
  const chunks = list[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      const text = write(next.value);
      if (text.length > 0) yield text;
    }
  } finally {
    // The client may leave mid-list: let the store release what it holds for this read.
    await chunks.return?.();
  }
}

/** The items of each chunk of `list` as JSON text. */
export const itemPieces = (list: AsyncIterable<readonly InventoryItem[]>): AsyncGenerator<string> =>
  pieces(list, itemsJson);

/** The entries of each chunk of a store's columns (InventoryRepository.listColumns) as JSON text. */
export const columnPieces = (list: AsyncIterable<InventoryColumns>): AsyncGenerator<string> =>
  pieces(list, columnsJson);

/**
 * A piece of the list's JSON as the bytes the socket sends. The list's JSON is ASCII (digits, the
 * fixed names and the three statuses: see json-writer.ts), so its latin1 bytes are its UTF-8 ones, and
 * copying a chunk's text out so costs less than the socket's UTF-8 encoding of it.
 */
const asciiBytes = (text: string): Buffer => Buffer.from(text, 'latin1');

/** The bytes of the array after `opening`, one piece a chunk of items, then the closing bracket. */
async function* arrayPieces(pieces: AsyncIterator<string>, opening: string): AsyncGenerator<Buffer> {
  try {
    yield asciiBytes(opening);
    for (;;) {
      const next = await pieces.next();
      if (next.done) break;
      // An empty piece writes nothing, so that no stray comma can appear.
      if (next.value.length > 0) yield asciiBytes(`,${next.value}`);
    }
    yield asciiBytes(']');
  } finally {
    await pieces.return?.();
  }
}

/**
 * The JSON array of the items whose text `pieces` gives, a chunk a piece (see itemPieces). A list that
 * fits one chunk is answered as one string (with a Content-Length, in one write: the common, small case
 * stays cheap). A longer one is streamed from the store chunk by chunk through a Readable that pulls the
 * next chunk only when the socket has drained, so memory holds a chunk or two, however many pets there
 * are. A store failure before the first byte throws (a 500); one after it destroys the stream, and with
 * it the connection, so that a client can never take a cut-off list for a complete one.
 */
export async function inventoryJsonBody(pieces: AsyncIterable<string>): Promise<string | Readable> {
  const chunks = pieces[Symbol.asyncIterator]();
  let first = await chunks.next();
  while (!first.done && first.value.length === 0) first = await chunks.next();
  if (first.done) return '[]';
  let second = await chunks.next();
  while (!second.done && second.value.length === 0) second = await chunks.next();
  if (second.done) return `[${first.value}]`;
  return Readable.from(arrayPieces(chunks, `[${first.value},${second.value}`), { objectMode: false });
}
