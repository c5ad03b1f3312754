import type { IdempotencyClaim, StockWrite, StockWriteResult } from '../../application/ports/inventory-repository.js';
import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { Quantity } from '../../domain/quantity.js';
import { ok } from '../../domain/result.js';

// Every message is a flat array: structured clone writes out every property name of every object it
// copies, so the same values in nested objects cost several times as much to send, and a write crosses
// twice. It carries the bigint ids exactly.

type WriteRequest = readonly [
  kind: 'write',
  id: number,
  petId: PetId,
  quantity: Quantity,
  actor: string,
  atMs: number,
  ifVersion: readonly number[] | undefined,
  claim: IdempotencyClaim | undefined,
];

/** What the store's thread posts to the writer thread, in arrays of them. */
export type WriterRequest =
  | WriteRequest
  | readonly [kind: 'forget', id: number, nowMs: number, max: number]
  /** Commit what is pending, answer it, close the connection and end the thread. */
  | readonly [kind: 'close'];

/** An error as it crosses threads: structured clone would keep an Error's message, not its `code`. */
export interface ErrorData {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly stack?: string;
}

type WrittenReply = readonly [
  kind: 'written',
  id: number,
  changeId: bigint,
  petId: PetId,
  beforeQuantity: number,
  beforeStatus: PetStatus,
  afterQuantity: number,
  afterStatus: PetStatus,
  actor: string,
  atMs: number,
  version: number,
  replayed: boolean,
];

/**
 * The answer to one request: a write that was done, any other value (a refused write, the number of
 * outcomes forgotten), or the error it failed with. The writer thread posts the answers of a batch
 * together, once its COMMIT has returned.
 */
export type WriterReply =
  | WrittenReply
  | readonly [kind: 'value', id: number, value: StockWriteResult | number]
  | readonly [kind: 'error', id: number, error: ErrorData];

/** What the writer thread posts: answers, and the size of each group commit they come from (for metrics). */
export interface WriterAnswers {
  readonly replies: readonly WriterReply[];
  readonly committed: readonly number[];
}

export const writeRequest = (id: number, command: StockWrite): WriteRequest => [
  'write',
  id,
  command.petId,
  command.quantity,
  command.actor,
  command.atMs,
  command.ifVersion,
  command.idempotency,
];

export function commandOf([, , petId, quantity, actor, atMs, ifVersion, claim]: WriteRequest): StockWrite {
  return {
    petId,
    quantity,
    actor,
    atMs,
    ...(ifVersion === undefined ? {} : { ifVersion }),
    ...(claim === undefined ? {} : { idempotency: claim }),
  };
}

export function resultReply(id: number, result: StockWriteResult): WriterReply {
  if (!result.ok) return ['value', id, result];
  const { change, version, replayed } = result.value;
  const { before, after } = change;
  return [
    'written',
    id,
    change.id,
    after.petId,
    before.quantity,
    before.status,
    after.quantity,
    after.status,
    change.actor,
    change.atMs,
    version,
    replayed,
  ];
}

/** The result a `written` reply stands for, through the domain's checks again. */
export function writtenResult([
  ,
  ,
  changeId,
  petId,
  beforeQuantity,
  beforeStatus,
  afterQuantity,
  afterStatus,
  actor,
  atMs,
  version,
  replayed,
]: WrittenReply): StockWriteResult {
  const before = inventoryItem(petId, beforeQuantity, beforeStatus);
  const after = inventoryItem(petId, afterQuantity, afterStatus);
  return ok({ change: { id: changeId, before, after, actor, atMs }, version, replayed });
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
