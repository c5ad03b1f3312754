import { availableOf, levelOf, type StockLevel, withStock } from './inventory-item.js';
import { isQuantity } from './quantity.js';
import type { ReservationOutcome } from './reservation-outcome.js';
import { fail } from './result.js';
import { isReason } from './stock-change.js';
import { type IdempotencyClaim, isDelta, type StockCommand, type StockOrder } from './stock-command.js';
import {
  KEY_IN_USE,
  KEY_REUSED,
  resultOf,
  type StockOutcome,
  type StockRefusal,
  type StockWriteResult,
  type WrittenEntry,
} from './stock-outcome.js';
import type { InventoryEntry } from './stock-write.js';

/** What a claim keeps: the outcome of a stock write, or of a reservation write. */
export type StoredOutcome = StockOutcome | ReservationOutcome;

/**
 * A claim as a store keeps it: the request it was made for, its outcome, and when it may be forgotten.
 * Stock and reservation writes share the keys of a scope, so a key used on one is refused on the other.
 */
export interface StoredClaim {
  readonly fingerprint: string;
  readonly expiresAtMs: number;
  readonly outcome: StoredOutcome;
}

/** What a store found of a command's claim inside its transaction. */
export interface ClaimFound {
  /** The claim stored for the same scope and key, expired or not; undefined when none is. */
  readonly stored: StoredClaim | undefined;
  /** True when a write still under way holds the key (another transaction, or this process). */
  readonly heldElsewhere: boolean;
}

/** Everything a stock write is decided from, as the store read it inside its transaction. */
export interface StockWriteInput {
  /** The command; its `atMs` is the time the write is decided at. */
  readonly command: StockCommand;
  /** The entry of each order's pet, in the orders' order: undefined where no pet has that id. */
  readonly entries: readonly (InventoryEntry | undefined)[];
  /** What the store found of the command's claim; undefined for a command without one. */
  readonly claim: ClaimFound | undefined;
  /** Ids the store reserved for the changes this write may record, ascending: one per order at least. */
  readonly changeIds: readonly bigint[];
}

/**
 * What a store does with a decided write, all in its one transaction: store each written entry (its
 * `change.after` at `version`) and record its change, store the claim's outcome when there is one, and
 * answer `result`. A refused write has no entries; an answer from a claim (replay, reuse, in use) has
 * neither entries nor a claim to store.
 */
export interface StockDecision {
  readonly result: StockWriteResult;
  readonly written: readonly WrittenEntry[];
  readonly claimed: { readonly claim: IdempotencyClaim; readonly outcome: StockOutcome } | undefined;
}

/** What a claim alone answers: a refusal of the key, or the outcome to replay. */
export type ClaimAnswer =
  | { readonly error: typeof KEY_IN_USE | typeof KEY_REUSED }
  | { readonly outcome: StoredOutcome };

/**
 * The answer a claim alone gives, before any entry is looked at: in use while another write holds the
 * key; nothing (the write goes ahead and stores its own outcome) when no outcome is stored or it
 * expired at `nowMs`; a refusal when the key was used on another request; else the first outcome, to
 * replay. The one place that decides these, for every kind of write, every store and this process's
 * own writes.
 */
export function claimAnswer(found: ClaimFound, claim: IdempotencyClaim, nowMs: number): ClaimAnswer | undefined {
  if (found.heldElsewhere) return { error: KEY_IN_USE };
  const stored = found.stored;
  if (stored === undefined || stored.expiresAtMs <= nowMs) return undefined;
  if (stored.fingerprint !== claim.fingerprint) return { error: KEY_REUSED };
  return { outcome: stored.outcome };
}

/** `claimAnswer` as the answer of a stock write. */
export function answerFromClaim(
  found: ClaimFound,
  claim: IdempotencyClaim,
  nowMs: number,
): StockWriteResult | undefined {
  const answer = claimAnswer(found, claim, nowMs);
  if (answer === undefined) return undefined;
  if ('error' in answer) return fail(answer.error);
  // The fingerprint names the method and path: the same one is the same kind of write.
  if (answer.outcome.kind !== 'written' && answer.outcome.kind !== 'refused') {
    throw new Error('an Idempotency-Key holds the outcome of another kind of write than its request');
  }
  return resultOf(answer.outcome, true);
}

/**
 * The entry an order leaves, or why it is refused, given the pet's entry as read and its level
 * (`levelOf` its item, made once by the caller: the change records it as its `before`). The version
 * comes first (a missing pet is refused before this is asked). What held reservations set aside stays: a
 * set may not go below it, and an adjustment may take only what is available.
 */
function judge(
  order: StockOrder,
  index: number,
  current: InventoryEntry,
  level: StockLevel,
): StockRefusal | StockLevel {
  if (order.ifVersion !== undefined && !order.ifVersion.includes(current.version)) {
    return { index, code: 'precondition_failed', petId: order.petId, currentVersion: current.version };
  }
  const { reserved } = current.item;
  switch (order.kind) {
    case 'set':
      if (order.quantity < reserved) {
        return { index, code: 'quantity_below_reserved', petId: order.petId, quantity: order.quantity, reserved };
      }
      return withStock(level, order.quantity);
    case 'adjust': {
      if (!isDelta(order.delta)) throw new RangeError(`delta ${order.delta} is not a valid adjustment`);
      const { quantity } = level;
      const next = quantity + order.delta;
      const refused = { index, petId: order.petId, quantity, delta: order.delta };
      if (-order.delta > availableOf(current.item)) {
        return { ...refused, code: 'insufficient_stock', ...(reserved === 0 ? {} : { reserved }) };
      }
      if (!isQuantity(next)) return { ...refused, code: 'quantity_limit_exceeded' };
      return withStock(level, next);
    }
  }
}

/** An order's reason, re-checked: an invalid one is a bug of the edge that let it through. */
function reasonOf(order: StockOrder): string | null {
  if (order.reason === undefined) return null;
  if (!isReason(order.reason)) throw new RangeError('a stock order carries a reason that is not a valid one');
  return order.reason;
}

/** A command names one pet at least, each once: two orders of one pet would both judge its stale read. */
function checkOrders(orders: readonly StockOrder[]): void {
  if (orders.length === 0) throw new RangeError('a stock command names one pet at least');
  if (orders.length > 1 && new Set(orders.map((order) => order.petId)).size !== orders.length) {
    throw new RangeError('a stock command names each pet once');
  }
}

const isRefusal = (judged: StockRefusal | StockLevel): judged is StockRefusal => 'code' in judged;

/**
 * The one decision of a stock write, for every store and every kind of order. Every order is judged
 * against its entry as read: a missing pet comes first (a 404 answers before any precondition, as RFC
 * 9110 section 13.2.2 orders it), then `ifVersion`, then the order's own rule (a set takes its count,
 * not below what is reserved; an adjustment may take what is available and land at QUANTITY_MAX at
 * most); the status moves by the domain's rule on the result. When any order is refused, nothing is
 * written and every refusal is answered; else
 * every entry moves to its next version with one change recorded. With a claim, the outcome is stored
 * for its retries, unless the claim alone answers (see `answerFromClaim`).
 */
export function decideStockWrite(input: StockWriteInput): StockDecision {
  const { command } = input;
  const claim = command.idempotency;
  if (claim !== undefined && input.claim !== undefined) {
    const answer = answerFromClaim(input.claim, claim, command.atMs);
    if (answer !== undefined) return { result: answer, written: [], claimed: undefined };
  }
  const { orders } = command;
  checkOrders(orders);
  // Each list is made at its first element, as a literal of one: an empty array's first push allocates
  // room for 17, and nearly every command names one pet and is written (measured on the SQLite writer
  // thread, bench/garbage.ts).
  let refusals: StockRefusal[] | undefined;
  let written: WrittenEntry[] | undefined;
  for (let index = 0; index < orders.length; index += 1) {
    const order = orders[index] as StockOrder;
    const current = input.entries[index];
    const before = current === undefined ? undefined : levelOf(current.item);
    const judged: StockRefusal | StockLevel =
      current === undefined || before === undefined
        ? { index, code: 'pet_not_found', petId: order.petId }
        : judge(order, index, current, before);
    if (isRefusal(judged)) {
      if (refusals === undefined) refusals = [judged];
      else refusals.push(judged);
      continue;
    }
    const id = input.changeIds[written === undefined ? 0 : written.length];
    if (current === undefined || before === undefined || id === undefined) {
      throw new Error('a store must reserve a change id per order');
    }
    const entry: WrittenEntry = {
      change: {
        id,
        kind: order.kind,
        before,
        after: judged,
        actor: command.actor,
        atMs: command.atMs,
        reason: reasonOf(order),
      },
      version: current.version + 1,
      reserved: current.item.reserved,
    };
    if (written === undefined) written = [entry];
    else written.push(entry);
  }
  let outcome: StockOutcome;
  if (refusals !== undefined) outcome = { kind: 'refused', refusals };
  else if (written !== undefined) outcome = { kind: 'written', entries: written };
  else throw new Error('a command of no refused order writes one entry at least');
  return {
    result: resultOf(outcome, false),
    written: outcome.kind === 'written' ? outcome.entries : [],
    claimed: claim === undefined ? undefined : { claim, outcome },
  };
}
