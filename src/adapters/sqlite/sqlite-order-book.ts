import type { Database, Statement } from 'better-sqlite3';
import type { OrderBook } from '../../application/ports/order-book.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import { isOrderStatus, type Order } from '../../domain/order.js';
import { petId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { allOrNothing } from './all-or-nothing.js';

interface OrderRow {
  readonly id: bigint;
  readonly pet_id: bigint;
  readonly quantity: bigint;
  readonly ship_date: string;
  readonly status: string;
  readonly complete: bigint;
}

type Refusal = DomainError<'duplicate_order' | 'pet_not_found'>;

function orderOfRow(row: OrderRow): Order {
  if (!isOrderStatus(row.status)) throw new Error(`order ${row.id} has the unknown status ${row.status}`);
  return {
    id: row.id,
    petId: petId(row.pet_id),
    quantity: Number(row.quantity),
    shipDate: row.ship_date,
    status: row.status,
    complete: row.complete === 1n,
  };
}

/** The `orders` table; an order must name a stored pet (a foreign key guards it as well). */
export class SqliteOrderBook implements OrderBook {
  private readonly all: Statement<[], OrderRow>;
  private readonly insertAll: (orders: readonly Order[]) => Refusal | undefined;

  constructor(db: Database) {
    this.all = db.prepare('SELECT id, pet_id, quantity, ship_date, status, complete FROM orders ORDER BY id');
    const exists = (table: 'orders' | 'pets') =>
      db.prepare<[bigint], { readonly found: bigint }>(`SELECT 1 AS found FROM ${table} WHERE id = ?`);
    const orderExists = exists('orders');
    const petExists = exists('pets');
    const insert = db.prepare<[bigint, bigint, number, string, string, number]>(
      'INSERT INTO orders (id, pet_id, quantity, ship_date, status, complete) VALUES (?, ?, ?, ?, ?, ?)',
    );
    // Both checks come before the insert, so a refusal names the order or the pet rather than a broken
    // constraint; earlier orders of the same batch are already in the table, so a repeat is caught too.
    this.insertAll = allOrNothing(db, (orders: readonly Order[]): Refusal | undefined => {
      for (const [index, o] of orders.entries()) {
        if (orderExists.get(o.id) !== undefined) {
          const twice = orders.slice(0, index).some((earlier) => earlier.id === o.id);
          return domainError(
            'duplicate_order',
            twice ? `order id ${o.id} is given twice` : `an order with id ${o.id} already exists`,
          );
        }
        if (petExists.get(o.petId) === undefined) {
          return domainError('pet_not_found', `order ${o.id} names pet ${o.petId}, which does not exist`);
        }
        insert.run(o.id, o.petId, o.quantity, o.shipDate, o.status, o.complete ? 1 : 0);
      }
      return undefined;
    });
  }

  async list(): Promise<readonly Order[]> {
    return this.all.all().map(orderOfRow);
  }

  async addAll(orders: readonly Order[]): Promise<Result<number, Refusal>> {
    const refusal = this.insertAll(orders);
    return refusal === undefined ? ok(orders.length) : fail(refusal);
  }
}
