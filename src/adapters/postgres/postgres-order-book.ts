import type { OrderBook, OrderRefusal } from '../../application/ports/order-book.js';
import { domainError } from '../../domain/errors.js';
import { isOrderStatus, type Order } from '../../domain/order.js';
import { petId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { oneBatch, slices, valuesList } from './multi-row.js';
import type { PostgresDatabase, Queryable } from './postgres-database.js';

type PgOrderRow = [id: bigint, petId: bigint, quantity: number, shipDate: string, status: string, complete: boolean];

function orderOfPgRow([id, pet, quantity, shipDate, status, complete]: PgOrderRow): Order {
  if (!isOrderStatus(status)) throw new Error(`order ${id} has the unknown status ${status}`);
  return { id, petId: petId(pet), quantity, shipDate, status, complete };
}

/** The ids among `ids` that `table` holds, each with whether this transaction wrote its row. */
async function storedIds(
  tx: Queryable,
  table: 'orders' | 'pets',
  ids: readonly bigint[],
): Promise<Map<bigint, boolean>> {
  const rows = await tx.rows<[bigint, boolean]>(
    `SELECT id, xmin = pg_current_xact_id()::xid FROM ${table} WHERE id = ANY($1::bigint[])`,
    [`{${ids.join(',')}}`],
  );
  return new Map(rows);
}

/**
 * The first refusal of a slice, in the order of the orders: an id given earlier in the stream (its row
 * is this transaction's own) or already stored, or a pet the store does not have. Checked before the
 * insert, so a refusal names the order or the pet rather than a broken constraint, and the stream is
 * refused at its first problem without a set of every id read so far.
 */
async function refusalOf(tx: Queryable, slice: readonly Order[]): Promise<OrderRefusal | undefined> {
  const existing = await storedIds(
    tx,
    'orders',
    slice.map((o) => o.id),
  );
  const pets = await storedIds(
    tx,
    'pets',
    slice.map((o) => o.petId),
  );
  const inSlice = new Set<bigint>();
  for (const o of slice) {
    const ours = existing.get(o.id);
    if (ours === true || inSlice.has(o.id)) return domainError('duplicate_order', `order id ${o.id} is given twice`);
    if (ours === false) return domainError('duplicate_order', `an order with id ${o.id} already exists`);
    if (!pets.has(o.petId)) {
      return domainError('pet_not_found', `order ${o.id} names pet ${o.petId}, which does not exist`);
    }
    inSlice.add(o.id);
  }
  return undefined;
}

/** The `orders` table; an order must name a stored pet (a foreign key guards it as well). */
export class PostgresOrderBook implements OrderBook {
  constructor(private readonly db: PostgresDatabase) {}

  async list(): Promise<readonly Order[]> {
    const rows = await this.db.rows<PgOrderRow>(
      'SELECT id, pet_id, quantity, ship_date, status, complete FROM orders ORDER BY id',
    );
    return rows.map(orderOfPgRow);
  }

  addAll(orders: readonly Order[]): Promise<Result<number, OrderRefusal>> {
    return this.addStream(oneBatch(orders));
  }

  /**
   * One transaction for the whole stream, a slice at a time: its orders are seen by no one before the
   * commit. Each order's foreign key holds a share lock on its pet's key until then, which stock writes
   * (FOR NO KEY UPDATE) do not wait for.
   */
  async addStream(batches: AsyncIterable<readonly Order[]>): Promise<Result<number, OrderRefusal>> {
    let count = 0;
    const refusal = await this.db.allOrNothing(async (tx): Promise<OrderRefusal | undefined> => {
      for await (const batch of batches) {
        for (const slice of slices(batch)) {
          const refused = await refusalOf(tx, slice);
          if (refused !== undefined) return refused;
          const { text, values } = valuesList(
            slice.map((o) => [o.id, o.petId, o.quantity, o.shipDate, o.status, o.complete]),
            ['bigint', 'bigint', 'integer'],
          );
          await tx.run(`INSERT INTO orders (id, pet_id, quantity, ship_date, status, complete) VALUES ${text}`, values);
          count += slice.length;
        }
      }
      return undefined;
    });
    return refusal === undefined ? ok(count) : fail(refusal);
  }
}
