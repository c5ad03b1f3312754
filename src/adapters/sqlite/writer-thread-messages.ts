import { stockLevel } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { Quantity } from '../../domain/quantity.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import { ok } from '../../domain/result.js';
import type { StockChangeKind } from '../../domain/stock-change.js';
import type { IdempotencyClaim, StockCommand, StockOrder } from '../../domain/stock-command.js';
import type { StockWriteResult, WrittenEntry } from '../../domain/stock-outcome.js';

// Every message is a flat array where it can be: structured clone writes out every property name of
// every object it copies, so the same values in nested objects cost several times as much to send, and
// a write crosses twice. It carries the bigint ids exactly. Each order crosses as its fields one after
// another (an object per order cost a PATCH about 1 µs more of CPU, sent and received, than these).

/** One order's fields: its kind, its pet, the kind's one value, the versions it is conditional on, why. */
type OrderFields = [
  kind: StockOrder['kind'],
  petId: PetId,
  value: number,
  ifVersion: readonly number[] | undefined,
  reason: string | undefined,
];

const ORDER_FIELDS = 5;

type WriteRequest = readonly [
  kind: 'write',
  id: number,
  actor: string,
  atMs: number,
  claim: IdempotencyClaim | undefined,
  ...orders: OrderFields[number][],
];

/** What the store's thread posts to the writer thread, in arrays of them. */
export type WriterRequest =
  | WriteRequest
  | readonly [kind: 'forget', id: number, nowMs: number, max: number]
  /** A reservation write: rare beside stock writes, so it crosses as the command object itself. */
  | readonly [kind: 'reserve', id: number, command: ReservationCommand]
  | readonly [kind: 'lapse', id: number, petId: PetId, nowMs: number]
  /** Commit what is pending, answer it, close the connection and end the thread. */
  | readonly [kind: 'close'];

/** An error as it crosses threads: structured clone would keep an Error's message, not its `code`. */
export interface ErrorData {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly stack?: string;
}

/** The fields of one written entry in a `written` reply, one after another for each entry. */
type EntryFields = [
  changeId: bigint,
  kind: StockChangeKind,
  reason: string | null,
  petId: bigint,
  beforeQuantity: number,
  beforeStatus: PetStatus,
  afterQuantity: number,
  afterStatus: PetStatus,
  version: number,
  reserved: number,
];

const ENTRY_FIELDS = 10;

/** A write that was done: the command's actor and time once, then each entry's fields. */
type WrittenReply = readonly [
  kind: 'written',
  id: number,
  replayed: boolean,
  actor: string,
  atMs: number,
  ...entries: EntryFields[number][],
];

/**
 * The answer to one request: a write that was done, any other value (a refused write, the number of
 * outcomes forgotten), or the error it failed with. The writer thread posts the answers of a batch
 * together, once its COMMIT has returned.
 */
export type WriterReply =
  | WrittenReply
  | readonly [kind: 'value', id: number, value: StockWriteResult | ReservationWriteResult | number]
  | readonly [kind: 'error', id: number, error: ErrorData];

/** What the writer thread posts: answers, and the size of each group commit they come from (for metrics). */
export interface WriterAnswers {
  readonly replies: readonly WriterReply[];
  readonly committed: readonly number[];
}

/** An order's one value besides its pet, versions and reason: what a new kind of order adds here. */
function orderValue(order: StockOrder): number {
  switch (order.kind) {
    case 'set':
      return order.quantity;
    case 'adjust':
      return order.delta;
  }
}

/** The order of these fields; the writer thread's decision checks every value again. */
function orderOf([kind, petId, value, ifVersion, reason]: OrderFields): StockOrder {
  switch (kind) {
    case 'set':
      return { kind, petId, quantity: value as Quantity, ifVersion, reason };
    case 'adjust':
      return { kind, petId, delta: value, ifVersion, reason };
  }
}

export function writeRequest(id: number, command: StockCommand): WriteRequest {
  const request: WriteRequest[number][] = ['write', id, command.actor, command.atMs, command.idempotency];
  for (const order of command.orders) {
    request.push(order.kind, order.petId, orderValue(order), order.ifVersion, order.reason);
  }
  return request as unknown as WriteRequest;
}

export function commandOf(request: WriteRequest): StockCommand {
  const [, , actor, atMs, claim] = request;
  const orders: StockOrder[] = [];
  for (let at = 5; at < request.length; at += ORDER_FIELDS) {
    orders.push(orderOf(request.slice(at, at + ORDER_FIELDS) as OrderFields));
  }
  return { orders, actor, atMs, idempotency: claim };
}

export function resultReply(id: number, result: StockWriteResult): WriterReply {
  if (!result.ok) return ['value', id, result];
  const { entries, replayed } = result.value;
  const first = entries[0];
  if (first === undefined) throw new Error('a write that was done wrote one entry at least');
  const reply: WrittenReply[number][] = ['written', id, replayed, first.change.actor, first.change.atMs];
  for (const { change, version, reserved } of entries) {
    const { before, after } = change;
    reply.push(
      change.id,
      change.kind,
      change.reason,
      after.petId,
      before.quantity,
      before.status,
      after.quantity,
      after.status,
      version,
      reserved,
    );
  }
  return reply as unknown as WrittenReply;
}

/** The result a `written` reply stands for, through the domain's checks again. */
export function writtenResult(reply: WrittenReply): StockWriteResult {
  const [, , replayed, actor, atMs] = reply;
  const entries: WrittenEntry[] = [];
  for (let at = 5; at < reply.length; at += ENTRY_FIELDS) {
    const [changeId, kind, reason, petId, beforeQuantity, beforeStatus, afterQuantity, afterStatus, version, reserved] =
      reply.slice(at, at + ENTRY_FIELDS) as EntryFields;
    entries.push({
      change: {
        id: changeId,
        kind,
        before: stockLevel(petId, beforeQuantity, beforeStatus),
        after: stockLevel(petId, afterQuantity, afterStatus),
        actor,
        atMs,
        reason,
      },
      version,
      reserved: reserved as Quantity,
    });
  }
  return ok({ entries, replayed });
}

export function errorData(error: unknown): ErrorData {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(error.stack === undefined ? {} : { stack: error.stack }),
  };
}

/** The error again, on the receiving thread, with its name, code and the writer thread's stack. */
export function errorOf(data: ErrorData): Error {
  const error = Object.assign(new Error(data.message), data.code === undefined ? {} : { code: data.code });
  error.name = data.name;
  if (data.stack !== undefined) error.stack = data.stack;
  return error;
}
