import type { Database, Statement } from 'better-sqlite3';
import type { OrderBook, OrderRefusal } from '../../application/ports/order-book.js';
import { domainError } from '../../domain/errors.js';
import { isOrderStatus, type Order } from '../../domain/order.js';
import { petId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { allOrNothing } from './all-or-nothing.js';
import { importThroughStaging, type Staging } from './staged-import.js';

interface OrderRow {
  readonly id: bigint;
  readonly pet_id: bigint;
  readonly quantity: bigint;
  readonly ship_date: string;
  readonly status: string;
  readonly complete: bigint;
}

type Refusal = OrderRefusal;

const COLUMNS = 'id, pet_id, quantity, ship_date, status, complete';

const rowOf = (o: Order): [bigint, bigint, number, string, string, number] => [
  o.id,
  o.petId,
  o.quantity,
  o.shipDate,
  o.status,
  o.complete ? 1 : 0,
];

const duplicate = (id: bigint, twice: boolean): Refusal =>
  domainError('duplicate_order', twice ? `order id ${id} is given twice` : `an order with id ${id} already exists`);

const unknownPet = (id: bigint, pet: bigint): Refusal =>
  domainError('pet_not_found', `order ${id} names pet ${pet}, which does not exist`);

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
  private readonly staging: Staging<Order, Refusal>;

  constructor(private readonly db: Database) {
    this.all = db.prepare(`SELECT ${COLUMNS} FROM orders ORDER BY id`);
    const exists = (table: 'orders' | 'pets') =>
      db.prepare<[bigint], { readonly found: bigint }>(`SELECT 1 AS found FROM ${table} WHERE id = ?`);
    const orderExists = exists('orders');
    const petExists = exists('pets');
    const insert = db.prepare<[bigint, bigint, number, string, string, number]>(
      `INSERT INTO orders (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    // Both checks come before the insert, so a refusal names the order or the pet rather than a broken
    // constraint; earlier orders of the same batch are already in the table, so a repeat is caught too.
    this.insertAll = allOrNothing(db, (orders: readonly Order[]): Refusal | undefined => {
      for (const [index, o] of orders.entries()) {
        if (orderExists.get(o.id) !== undefined) {
          return duplicate(
            o.id,
            orders.slice(0, index).some((earlier) => earlier.id === o.id),
          );
        }
        if (petExists.get(o.petId) === undefined) return unknownPet(o.id, o.petId);
        insert.run(...rowOf(o));
      }
      return undefined;
    });
    // The checks name the first order at fault by id, as the foreign key alone would not.
    this.staging = {
      // Not a copy of `orders`: its foreign key would name a `pets` table in the temporary database.
      definition: (staged) =>
        `CREATE TABLE ${staged} (id INTEGER PRIMARY KEY, pet_id INTEGER NOT NULL, quantity INTEGER NOT NULL,
           ship_date TEXT NOT NULL, status TEXT NOT NULL, complete INTEGER NOT NULL)`,
      columns: COLUMNS,
      row: rowOf,
      givenTwice: (o) => duplicate(o.id, true),
      commit: (staged) => {
        const stored = db
          .prepare<[], { readonly id: bigint }>(
            `SELECT s.id FROM ${staged} s WHERE EXISTS (SELECT 1 FROM main.orders o WHERE o.id = s.id) ORDER BY s.id LIMIT 1`,
          )
          .get();
        if (stored !== undefined) return duplicate(stored.id, false);
        const orphan = db
          .prepare<[], { readonly id: bigint; readonly pet_id: bigint }>(
            `SELECT s.id, s.pet_id FROM ${staged} s WHERE NOT EXISTS (SELECT 1 FROM main.pets p WHERE p.id = s.pet_id)
             ORDER BY s.id LIMIT 1`,
          )
          .get();
        if (orphan !== undefined) return unknownPet(orphan.id, orphan.pet_id);
        db.prepare(`INSERT INTO main.orders (${COLUMNS}) SELECT ${COLUMNS} FROM ${staged}`).run();
        return undefined;
      },
    };
  }

  async list(): Promise<readonly Order[]> {
    return this.all.all().map(orderOfRow);
  }

  async addAll(orders: readonly Order[]): Promise<Result<number, Refusal>> {
    const refusal = this.insertAll(orders);
    return refusal === undefined ? ok(orders.length) : fail(refusal);
  }

  addStream(batches: AsyncIterable<readonly Order[]>): Promise<Result<number, Refusal>> {
    return importThroughStaging(this.db, this.staging, batches);
  }
}
