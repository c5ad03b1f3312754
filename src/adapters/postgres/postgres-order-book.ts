import type { OrderBook } from '../../application/ports/order-book.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import { isOrderStatus, type Order } from '../../domain/order.js';
import { petId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { slices, valuesList } from './multi-row.js';
import type { PostgresDatabase, Queryable } from './postgres-database.js';

type OrderRow = [id: bigint, petId: bigint, quantity: number, shipDate: string, status: string, complete: boolean];

type Refusal = DomainError<'duplicate_order' | 'pet_not_found'>;

function orderOfRow([id, pet, quantity, shipDate, status, complete]: OrderRow): Order {
  if (!isOrderStatus(status)) throw new Error(`order ${id} has the unknown status ${status}`);
  return { id, petId: petId(pet), quantity, shipDate, status, complete };
}

/** The ids among `ids` that `table` holds. */
async function storedIds(tx: Queryable, table: 'orders' | 'pets', ids: readonly bigint[]): Promise<Set<bigint>> {
  const rows = await tx.rows<[bigint]>(`SELECT id FROM ${table} WHERE id = ANY($1::bigint[])`, [`{${ids.join(',')}}`]);
  return new Set(rows.map(([id]) => id));
}

/**
 * The first refusal of a slice, in the order of the orders: a repeated or stored id, or a pet the
 * store does not have. Checked before the insert, so a refusal names the order or the pet rather than
 * a broken constraint.
 */
async function refusalOf(tx: Queryable, slice: readonly Order[], earlier: Set<bigint>): Promise<Refusal | undefined> {
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
  for (const o of slice) {
    if (earlier.has(o.id)) return domainError('duplicate_order', `order id ${o.id} is given twice`);
    if (existing.has(o.id)) return domainError('duplicate_order', `an order with id ${o.id} already exists`);
    if (!pets.has(o.petId)) {
      return domainError('pet_not_found', `order ${o.id} names pet ${o.petId}, which does not exist`);
    }
    earlier.add(o.id);
  }
  return undefined;
}

/** The `orders` table; an order must name a stored pet (a foreign key guards it as well). */
export class PostgresOrderBook implements OrderBook {
  constructor(private readonly db: PostgresDatabase) {}

  async list(): Promise<readonly Order[]> {
    const rows = await this.db.rows<OrderRow>(
      'SELECT id, pet_id, quantity, ship_date, status, complete FROM orders ORDER BY id',
    );
    return rows.map(orderOfRow);
  }

  async addAll(orders: readonly Order[]): Promise<Result<number, Refusal>> {
    const seen = new Set<bigint>();
    const refusal = await this.db.allOrNothing(async (tx): Promise<Refusal | undefined> => {
      for (const slice of slices(orders)) {
        const refused = await refusalOf(tx, slice, seen);
        if (refused !== undefined) return refused;
        const { text, values } = valuesList(
          slice.map((o) => [o.id, o.petId, o.quantity, o.shipDate, o.status, o.complete]),
          ['bigint', 'bigint', 'integer'],
        );
        await tx.run(`INSERT INTO orders (id, pet_id, quantity, ship_date, status, complete) VALUES ${text}`, values);
      }
      return undefined;
    });
    return refusal === undefined ? ok(orders.length) : fail(refusal);
  }
}
