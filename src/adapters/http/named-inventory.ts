import { Readable } from 'node:stream';
import type { NamedInventoryItem } from '../../application/ports/inventory-repository.js';
import type { ListInventory } from '../../application/use-cases/list-inventory.js';
import { availableOf } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import { namedItemJson } from './json-writer.js';
import type { InventoryPage } from './request-schemas.js';

/** How many entries each read of a whole named list (JSON or CSV) asks the store for. */
const READ_PAGE = 1_000;

/**
 * Every entry `page` selects, with names, read a page at a time: each read starts after the last id
 * read, so no store is held between two, and rows changed meanwhile are neither repeated nor skipped.
 */
async function* namedPages(list: ListInventory, page: InventoryPage): AsyncGenerator<readonly NamedInventoryItem[]> {
  const { limit: _, q, ...filters } = page;
  let after: PetId | undefined = page.after;
  for (;;) {
    const items = await list.page({
      ...filters,
      ...(after === undefined ? {} : { after }),
      ...(q === undefined ? {} : { nameContains: q }),
      limit: READ_PAGE,
    });
    if (items.length > 0) yield items;
    if (items.length < READ_PAGE) return;
    after = (items[items.length - 1] as NamedInventoryItem).petId;
  }
}

/** Each text `write` makes of a page, as UTF-8 bytes (names are any text), `opening` and `closing` around. */
async function* utf8Pieces(
  pages: AsyncGenerator<readonly NamedInventoryItem[]>,
  write: (items: readonly NamedInventoryItem[], first: boolean) => string,
  opening: string,
  closing: string,
): AsyncGenerator<Buffer> {
  yield Buffer.from(opening);
  let first = true;
  for await (const items of pages) {
    yield Buffer.from(write(items, first));
    first = false;
  }
  yield Buffer.from(closing);
}

/**
 * The whole list `page` selects, part of a name included, as a JSON array of named entries, streamed.
 * A store failure after the first byte destroys the stream, and with it the connection, so a client
 * never takes a cut-off list for a whole one.
 */
export const namedJsonBody = (list: ListInventory, page: InventoryPage): Readable =>
  Readable.from(
    utf8Pieces(
      namedPages(list, page),
      (items, first) => (first ? '' : ',') + items.map(namedItemJson).join(','),
      '[',
      ']',
    ),
    { objectMode: false },
  );

/** The CSV's columns, its first line. */
const CSV_HEADER = 'petId,name,category,quantity,reserved,available,status\r\n';

// A cell a spreadsheet would run as a formula (OWASP, "CSV injection") starts with one of these.
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One field of RFC 4180: quoted when it holds a comma, a quote or a line break (quotes doubled); a text
 * that a spreadsheet would take for a formula is kept as text by a leading apostrophe, as OWASP advises.
 */
function csvField(text: string): string {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const csvLine = (item: NamedInventoryItem): string =>
  `${item.petId},${csvField(item.name)},${item.category === undefined ? '' : csvField(item.category.name)},` +
  `${item.quantity},${item.reserved},${availableOf(item)},${item.status}\r\n`;

/** The whole list `page` selects as CSV (RFC 4180, CRLF lines, a header line first), streamed. */
export const inventoryCsvBody = (list: ListInventory, page: InventoryPage): Readable =>
  Readable.from(
    utf8Pieces(namedPages(list, page), (items) => items.map(csvLine).join(''), CSV_HEADER, ''),
    { objectMode: false },
  );
