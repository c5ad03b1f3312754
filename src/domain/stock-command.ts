import type { PetId } from './pet-id.js';
import { isQuantity, QUANTITY_MAX, type Quantity } from './quantity.js';
import { fail, ok, type Result } from './result.js';

/**
 * A claim on an idempotency key: the first write that carries it stores its outcome, and a retry with
 * the same scope and key gets that outcome back instead of writing again.
 */
export interface IdempotencyClaim {
  /** Whose key it is (the API key id): the same key sent by another principal is another claim. */
  readonly scope: string;
  /** The client's Idempotency-Key. */
  readonly key: string;
  /** Names the request (method, path, body bytes); the same key on another request is refused. */
  readonly fingerprint: string;
  /** Unix milliseconds after which the stored outcome may be forgotten and the key used afresh. */
  readonly expiresAtMs: number;
}

/** What every order of a command names: its pet, the versions it is conditional on, and why. */
export interface OrderOfPet {
  readonly petId: PetId;
  /** Apply only when the entry's version is one of these (If-Match, `ifVersion`); any version when absent. */
  readonly ifVersion?: readonly number[];
  /** Kept with the change in the history (see `isReason`). */
  readonly reason?: string;
}

/** Set the stock of one pet to `quantity`. */
export interface SetStockOrder extends OrderOfPet {
  readonly kind: 'set';
  readonly quantity: Quantity;
}

/** Move the stock of one pet by `delta` (see `isDelta`); a result outside 0..QUANTITY_MAX is refused. */
export interface AdjustStockOrder extends OrderOfPet {
  readonly kind: 'adjust';
  readonly delta: number;
}

/** One change a command asks of one pet's stock; `kind` names the rule that decides it. */
export type StockOrder = SetStockOrder | AdjustStockOrder;

/** The kinds of stock order: each names the rule of stock-decision.ts that decides it. */
export type StockOrderKind = StockOrder['kind'];

type OrderOfKind<K extends StockOrderKind> = Extract<StockOrder, { readonly kind: K }>;

type OrderValues = { readonly [K in StockOrderKind]: Omit<OrderOfKind<K>, keyof OrderOfPet> };

/** An order's own value, without what every order names (its pet, versions and reason): one per kind. */
export type OrderValue = OrderValues[StockOrderKind];

/** Whether `value` can be an adjustment's delta: a whole number, not 0, at most QUANTITY_MAX either way. */
export const isDelta = (value: number): boolean =>
  Number.isInteger(value) && value !== 0 && Math.abs(value) <= QUANTITY_MAX;

/** What the core knows of a kind of order besides its rule: its one value, by name, read and checked. */
interface OrderKind<K extends StockOrderKind> {
  /** The name of the kind's one value, in an order and in an entry that names it (a batch's). */
  readonly field: string;
  valueOf(order: OrderValues[K]): unknown;
  /** The order of `pet` with `value`, or undefined when `value` is not one this kind takes. */
  orderOf(value: unknown, pet: OrderOfPet): OrderOfKind<K> | undefined;
}

/**
 * Every kind of order, each with one value (a kind that needs more makes them one value). So an order
 * is, as data, its kind, its pet, that value, its versions and its reason, and what carries orders (the
 * SQLite writer thread, the HTTP batch's schema) does it through the functions below, knowing no kind.
 * A new kind of stock write is its order type above, one entry here and its rule in stock-decision.ts.
 * The orders are literals of one shape, every field present: spreads of optional fields would build
 * objects of a different shape from request to request, which V8 builds on its slow path.
 */
const ORDER_KINDS: { readonly [K in StockOrderKind]: OrderKind<K> } = {
  set: {
    field: 'quantity',
    valueOf: (order) => order.quantity,
    orderOf: (value, { petId, ifVersion, reason }) =>
      isQuantity(value) ? { kind: 'set', quantity: value, petId, ifVersion, reason } : undefined,
  },
  adjust: {
    field: 'delta',
    valueOf: (order) => order.delta,
    orderOf: (value, { petId, ifVersion, reason }) =>
      typeof value === 'number' && isDelta(value)
        ? { kind: 'adjust', delta: value, petId, ifVersion, reason }
        : undefined,
  },
};

export const isStockOrderKind = (kind: unknown): kind is StockOrderKind =>
  typeof kind === 'string' && Object.hasOwn(ORDER_KINDS, kind);

/** Every kind of stock order the core knows. */
export const STOCK_ORDER_KINDS: readonly StockOrderKind[] = Object.keys(ORDER_KINDS).filter(isStockOrderKind);

/** The one value of an order (or of an OrderValue), whatever its kind. */
export function orderValueOf<K extends StockOrderKind>(order: OrderValues[K] & { readonly kind: K }): unknown {
  const kind: K = order.kind;
  return ORDER_KINDS[kind].valueOf(order);
}

/**
 * The order of kind `kind` with its one `value`, for `pet`, or why there is none: the kind is unknown,
 * or the value is not one it takes. The one way an order is made from data.
 */
export function stockOrder(kind: unknown, value: unknown, pet: OrderOfPet): Result<StockOrder, string> {
  if (!isStockOrderKind(kind)) return fail(`${String(kind)} is not a kind of stock order`);
  const order = ORDER_KINDS[kind].orderOf(value, pet);
  if (order === undefined) return fail(`${String(value)} is not a ${ORDER_KINDS[kind].field} a ${kind} order takes`);
  return ok(order);
}

const ONE_VALUE = `takes ${STOCK_ORDER_KINDS.map((kind) => ORDER_KINDS[kind].field).join(' or ')}, one of them`;

/**
 * The order an entry names by the name of its value (`{quantity}` a set, `{delta}` an adjustment), for
 * `pet`; an entry that names no kind's value, or several, is refused.
 */
export function stockOrderNamed(entry: Readonly<Record<string, unknown>>, pet: OrderOfPet): Result<StockOrder, string> {
  let named: StockOrderKind | undefined;
  for (const kind of STOCK_ORDER_KINDS) {
    if (entry[ORDER_KINDS[kind].field] === undefined) continue;
    if (named !== undefined) return fail(ONE_VALUE);
    named = kind;
  }
  if (named === undefined) return fail(ONE_VALUE);
  return stockOrder(named, entry[ORDER_KINDS[named].field], pet);
}

/**
 * A stock write as plain data, so that it can cross a thread or a network: the orders (each of another
 * pet) applied all or none, as `actor`, at `atMs`. The store reads what it names, asks the core's one
 * decision (`decideStockWrite`) and applies what it answers inside its own transaction.
 */
export interface StockCommand {
  readonly orders: readonly StockOrder[];
  readonly actor: string;
  readonly atMs: number;
  readonly idempotency?: IdempotencyClaim;
}

/** The pet of a command's first order: every command names one at least. */
export function firstPetOf(command: StockCommand): PetId {
  const first = command.orders[0];
  if (first === undefined) throw new Error('a stock command names one pet at least');
  return first.petId;
}
