import type {
  InventoryQuery,
  NamedInventoryItem,
  NamedInventoryQuery,
} from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { Queryable, SqlValue } from './postgres-database.js';
import { reservedAt } from './postgres-reservation-statements.js';

type PgNamedRow = [
  id: bigint,
  name: string,
  categoryId: string | null,
  categoryName: string | null,
  quantity: number,
  status: string,
  reserved: number,
];

type NameRow = [id: bigint, name: string, categoryId: string | null, categoryName: string | null];

const withName = (item: InventoryItem, [, name, categoryId, categoryName]: NameRow): NamedInventoryItem =>
  categoryId === null || categoryName === null
    ? { ...item, name }
    : { ...item, name, category: { id: BigInt(categoryId), name: categoryName } };

/** The text as an ILIKE pattern that matches it anywhere, its own `%`, `_` and `\` taken literally. */
const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A page of the entries `query` names, found by part of the pet's name, with the name: one statement
 * whose conditions the planner weighs. `pet_names_by_trigram` (pg_trgm's GIN index of the names'
 * trigrams, migration 11) finds the pets of a rare name of three characters or more; a common one is read in id
 * order from the primary key until the page is full. ILIKE folds case by the database's locale.
 */
export async function searchedPage(
  db: Queryable,
  query: NamedInventoryQuery,
  now: number,
): Promise<NamedInventoryItem[]> {
  const values: SqlValue[] = [query.limit, now, containing(query.nameContains ?? '')];
  const where = ['pet_names.name ILIKE $3'];
  if (query.after !== undefined) where.push(`pets.id > $${values.push(query.after)}::bigint`);
  // PetStatus names the edge checked, written into the text (as postgres-filtered-pages.ts does).
  if (query.statuses !== undefined) where.push(`status IN (${query.statuses.map((s) => `'${s}'`).join(', ')})`);
  if (query.maxAvailable !== undefined) {
    const max = `$${values.push(query.maxAvailable)}::integer`;
    where.push(`quantity - held <= ${max} AND (held = 0 OR quantity - ${reservedAt('$2')} <= ${max})`);
  }
  const rows = await db.rows<PgNamedRow>(
    `SELECT pets.id, pets.name, category_id, category_name, quantity, status, ${reservedAt('$2')}
     FROM pets JOIN pet_names USING (id) WHERE ${where.join(' AND ')} ORDER BY pets.id LIMIT $1`,
    values,
  );
  return rows.map((row) =>
    withName(inventoryItem(row[0], row[4], row[5] as PetStatus, row[6]), [row[0], row[1], row[2], row[3]]),
  );
}

/** The entries of a page the list read (by its own statements), each given its pet's name in one query. */
export async function namedItems(db: Queryable, items: readonly InventoryItem[]): Promise<NamedInventoryItem[]> {
  if (items.length === 0) return [];
  const rows = await db.rows<NameRow>(
    'SELECT id, name, category_id, category_name FROM pets WHERE id = ANY($1::bigint[])',
    [items.map((item) => item.petId)],
  );
  const names = new Map(rows.map((row) => [row[0], row]));
  return items.map((item) => {
    const row = names.get(item.petId);
    if (row === undefined) throw new Error(`pet ${item.petId} was listed but has no row`);
    return withName(item, row);
  });
}

/** The list's query of a page of `query`, without the name. */
export const pageQuery = ({ nameContains: _, ...query }: NamedInventoryQuery): InventoryQuery => query;
