import { isPetIdInRange, type PetId } from '../../domain/pet-id.js';
import { isQuantity, type Quantity } from '../../domain/quantity.js';
import type { IdempotencyClaim } from '../../domain/stock-command.js';
import { KEY_IN_USE, KEY_REUSED } from '../../domain/stock-outcome.js';

/*
 * What every message of the SQLite writer thread's protocol (writer-thread-messages.ts) is read with: a
 * reader that takes a message's fields in order, each through a type guard, and the error a message that
 * does not parse is; and what both kinds of write carry alike (a claim, a refused key).
 */

/** A message as it crosses: a flat array, read back only through the parsers of this file. */
export type Wire = readonly unknown[];

/** A message between the two threads that does not parse: a bug of the side that wrote it. */
export class WriterProtocolError extends Error {
  override readonly name = 'WriterProtocolError';
}

export type Guard<T> = (value: unknown) => value is T;

const isString: Guard<string> = (value) => typeof value === 'string';
export const isInteger: Guard<number> = (value): value is number => Number.isSafeInteger(value);
const isPetId: Guard<PetId> = (value): value is PetId => typeof value === 'bigint' && isPetIdInRange(value);
export const isVersions: Guard<readonly number[] | undefined> = (value) =>
  value === undefined || (Array.isArray(value) && value.every(isInteger));

export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/** Reads the fields of one message in order, each checked as it is read. */
export class Fields {
  private at = 2;

  constructor(
    private readonly message: Wire,
    /** The kind of request the message is, or answers. */
    private readonly kind: string,
    /** Whether it is the reply to that request. */
    private readonly reply: boolean,
  ) {}

  /** The message, as an error names it: `the write request 7`; made only for an error. */
  get what(): string {
    return `${this.reply ? 'the reply to ' : ''}the ${this.kind} request ${String(this.message[1])}`;
  }

  /** The next field, if `is` takes it: for the rarer types; the common ones have a method each, below. */
  read<T>(name: string, expected: string, is: Guard<T>): T {
    const value = this.message[this.at];
    if (this.at >= this.message.length || !is(value)) throw this.wrong(name, expected);
    this.at += 1;
    return value;
  }

  // One method a common type, its check written out: a guard passed to `read` is a call V8 cannot
  // inline where many guards meet, and a batch's answer is read a thousand fields at a time.

  string(name: string): string {
    const value = this.message[this.at];
    if (typeof value !== 'string') throw this.wrong(name, 'a string');
    this.at += 1;
    return value;
  }

  optionalString(name: string): string | undefined {
    const value = this.message[this.at];
    if (this.at >= this.message.length || (value !== undefined && typeof value !== 'string')) {
      throw this.wrong(name, 'a string or undefined');
    }
    this.at += 1;
    return value;
  }

  nullableString(name: string): string | null {
    const value = this.message[this.at];
    if (value !== null && typeof value !== 'string') throw this.wrong(name, 'a string or null');
    this.at += 1;
    return value;
  }

  /** The next field, whatever it holds, for a check of its own (the core's, of an order). */
  value(name: string): unknown {
    if (this.at >= this.message.length) throw this.wrong(name, 'a value');
    const value = this.message[this.at];
    this.at += 1;
    return value;
  }

  integer(name: string): number {
    const value = this.message[this.at];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw this.wrong(name, 'an integer');
    this.at += 1;
    return value;
  }

  optionalInteger(name: string): number | undefined {
    const value = this.message[this.at];
    if (this.at >= this.message.length || (value !== undefined && !isInteger(value))) {
      throw this.wrong(name, 'an integer or undefined');
    }
    this.at += 1;
    return value;
  }

  bigint(name: string): bigint {
    const value = this.message[this.at];
    if (typeof value !== 'bigint') throw this.wrong(name, 'a bigint');
    this.at += 1;
    return value;
  }

  petId(name: string): PetId {
    const value = this.message[this.at];
    if (!isPetId(value)) throw this.wrong(name, 'a pet id');
    this.at += 1;
    return value;
  }

  quantity(name: string): Quantity {
    const value = this.message[this.at];
    if (!isQuantity(value)) throw this.wrong(name, 'a quantity');
    this.at += 1;
    return value;
  }

  boolean(name: string): boolean {
    const value = this.message[this.at];
    if (typeof value !== 'boolean') throw this.wrong(name, 'a boolean');
    this.at += 1;
    return value;
  }

  get more(): boolean {
    return this.at < this.message.length;
  }

  /** Every field read: one more is a message of another shape. */
  end(): void {
    if (this.more) throw this.error(`has fields past its last, from field ${this.at}`);
  }

  /** The error of the next field, `name`, which is not `expected` or is missing. */
  private wrong(name: string, expected: string): WriterProtocolError {
    const at = this.at;
    if (at >= this.message.length) return this.error(`ends before its ${name} (field ${at})`);
    return this.error(`has ${describe(this.message[at])} as its ${name} (field ${at}), not ${expected}`);
  }

  error(text: string): WriterProtocolError {
    return new WriterProtocolError(`${this.what} ${text}`);
  }
}

/** How one value is written into a message, and read back out of it. */
export interface Codec<T> {
  write(value: T, out: unknown[]): void;
  read(fields: Fields): T;
  /**
   * The whole message `[name, id, ...fields]`, for a codec that writes its common case as one array
   * literal; without it the fields are pushed after the name and id (each growth of the array a new,
   * larger backing store).
   */
  message?(name: string, id: number, value: T): unknown[];
}

/** How one kind of answer is written as a whole message, and read back out of one. */
export interface ReplyCodec<T> {
  write(id: number, value: T): Wire;
  /** Reads the reply whose tag is `tag` (its fields are read from `fields`). */
  read(tag: unknown, fields: Fields): T;
}

/** An idempotency claim as four fields, all undefined for none. */
export const claimCodec: Codec<IdempotencyClaim | undefined> = {
  write(claim, out) {
    if (claim === undefined) out.push(undefined, undefined, undefined, undefined);
    else out.push(claim.scope, claim.key, claim.fingerprint, claim.expiresAtMs);
  },
  read(fields) {
    const scope = fields.optionalString('claim scope');
    const key = fields.optionalString('claim key');
    const fingerprint = fields.optionalString('claim fingerprint');
    const expiresAtMs = fields.optionalInteger('claim expiry');
    if (scope === undefined && key === undefined && fingerprint === undefined && expiresAtMs === undefined) {
      return undefined;
    }
    if (scope === undefined || key === undefined || fingerprint === undefined || expiresAtMs === undefined) {
      throw fields.error('has some of a claim’s fields and not the others');
    }
    return { scope, key, fingerprint, expiresAtMs };
  },
};

/** A refusal of the idempotency key, either kind of write: its code names it; the core's message goes with it. */
export function keyRefusal(tag: unknown, fields: Fields): typeof KEY_IN_USE | typeof KEY_REUSED | undefined {
  if (tag !== 'key_refused') return undefined;
  const code = fields.read('code', 'a code of a refused key', isString);
  if (code === KEY_IN_USE.code) return KEY_IN_USE;
  if (code === KEY_REUSED.code) return KEY_REUSED;
  throw fields.error(`names ${describe(code)}, not a code of a refused key`);
}

export const keyRefusalReply = (id: number, code: string): Wire => ['key_refused', id, code];
