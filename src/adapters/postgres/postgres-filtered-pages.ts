import type { InventoryQuery } from '../../application/ports/inventory-repository.js';
import type { PetId } from '../../domain/pet-id.js';
import type { Queryable } from './postgres-database.js';
import { reservedAt } from './postgres-reservation-statements.js';

/** As SQLite's (filtered-inventory-pages.ts): how far a page of maxAvailable walks in id order first. */
const WALK_BUDGET_PER_ENTRY = 8;
const WALK_BUDGET_MIN = 1_024;

type PgStockRow = [id: bigint, quantity: number, status: string, reserved: number];

/** How far a walk went: how many pets it read, and the last id among them (null: none). */
type PgWalkEnd = [read: number, last: bigint | null];

// The parameters, by position in every statement below: $1 after (null: from the first), $2 size,
// $3 the time reserved is read at, $4 maxAvailable, $5 the walk's budget.
const PAGE_COLUMNS = `id, quantity, status, ${reservedAt('$3')}`;
const AFTER = '($1::bigint IS NULL OR id > $1::bigint)';
// What is available checked exactly; `quantity - held` first, as the index has it.
const LOW_STOCK = `quantity - held <= $4::integer AND (held = 0 OR quantity - ${reservedAt('$3')} <= $4::integer)`;

/**
 * The statuses as a condition: PetStatus names the edge checked, written into the text, so each set of
 * them is planned as the index of statuses serves it.
 */
const ofStatuses = (query: InventoryQuery): string =>
  query.statuses === undefined ? 'true' : `status IN (${query.statuses.map((s) => `'${s}'`).join(', ')})`;

/**
 * A page of the list narrowed by status and by what is available, as SQLite's FilteredInventoryPages
 * reads it: by status alone, a walk of `pets_by_status` for each status; with maxAvailable, a walk of
 * the pets in id order up to a budget, then, if it filled no page, the rest from where it stopped by
 * `pets_by_spare` (quantity - held), which the planner takes for a bound few pets are under. Exact
 * either way: the first `size` matching entries after `after`.
 */
export async function filteredPage(
  db: Queryable,
  query: InventoryQuery,
  after: PetId | undefined,
  size: number,
  now: number,
): Promise<PgStockRow[]> {
  const statuses = ofStatuses(query);
  if (query.maxAvailable === undefined) {
    const ids = (query.statuses ?? [])
      .map((status) => `(SELECT id FROM pets WHERE status = '${status}' AND ${AFTER} ORDER BY id LIMIT $2)`)
      .join(' UNION ALL ');
    return db.rows<PgStockRow>(`SELECT ${PAGE_COLUMNS} FROM pets WHERE id IN (${ids}) ORDER BY id LIMIT $2`, [
      after ?? null,
      size,
      now,
    ]);
  }
  const budget = Math.max(WALK_BUDGET_MIN, size * WALK_BUDGET_PER_ENTRY);
  const walk = `SELECT * FROM pets WHERE ${AFTER} ORDER BY id LIMIT $5`;
  const walked = await db.rows<PgStockRow>(
    `SELECT ${PAGE_COLUMNS} FROM (${walk}) AS pets WHERE ${statuses} AND ${LOW_STOCK} ORDER BY id LIMIT $2`,
    [after ?? null, size, now, query.maxAvailable, budget],
  );
  if (walked.length >= size) return walked;
  const [[read, last] = [0, null]] = await db.rows<PgWalkEnd>(
    `SELECT count(*)::integer, max(id) FROM (SELECT id FROM pets WHERE ${AFTER} ORDER BY id LIMIT $2) AS walked`,
    [after ?? null, budget],
  );
  if (read < budget || last === null) return walked;
  const rest = await db.rows<PgStockRow>(
    `SELECT ${PAGE_COLUMNS} FROM pets WHERE id > $1::bigint AND ${statuses} AND ${LOW_STOCK} ORDER BY id LIMIT $2`,
    [last, size - walked.length, now, query.maxAvailable],
  );
  return walked.concat(rest);
}
