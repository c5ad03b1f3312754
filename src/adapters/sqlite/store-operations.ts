import type { PetId } from '../../domain/pet-id.js';
import type { StockCommandStatements } from './stock-command-statements.js';
import type { Codec, ReplyCodec } from './writer-thread-fields.js';
import {
  reservationCommandCodec,
  reservationResultCodec,
  stockCommandCodec,
  stockResultCodec,
} from './writer-thread-writes.js';

/*
 * The store's writes, each written once: its name, what its request and its answer are as they cross to
 * the writer thread, and the function that runs it on the statements of the connection that writes
 * (the writer thread's, or the store's own). SqliteInventoryRepository asks `run(name, request)`
 * (CommandQueue); every layer between it and these functions forwards a name and a request, and names
 * no operation. A new write is an entry here, its statements, and the repository's method.
 */

/** One store operation: how its request and its answer cross, and what it does with a connection's statements. */
export interface Operation<Request, Reply> {
  readonly request: Codec<Request>;
  readonly reply: ReplyCodec<Reply>;
  /**
   * True: it runs in the group commit, in one transaction with the writes beside it, and is answered
   * once that commits. False: it runs at once, in a transaction of its own (or none, for one statement).
   */
  readonly grouped: boolean;
  /** Runs the operation on `statements`, on whichever thread holds their connection. */
  perform(statements: StockCommandStatements, request: Request): Reply;
}

/** How many rows an operation changed. */
const countCodec: ReplyCodec<number> = {
  write: (id, count) => ['count', id, count],
  read(tag, fields) {
    if (tag !== 'count') throw fields.error('is not a count');
    return fields.integer('count');
  },
};

/** The time an operation runs at, and the most rows it may change. */
interface Sweep {
  readonly nowMs: number;
  readonly max: number;
}

/** One pet, and the time an operation runs at. */
interface PetAt {
  readonly petId: PetId;
  readonly nowMs: number;
}

/** An operation, its request's and answer's types taken from its codecs. */
const operation = <Request, Reply>(op: Operation<Request, Reply>): Operation<Request, Reply> => op;

const TABLE = {
  writeStock: operation({
    request: stockCommandCodec,
    reply: stockResultCodec,
    grouped: true,
    perform: (statements, command) => statements.writeStock(command),
  }),
  writeReservation: operation({
    request: reservationCommandCodec,
    reply: reservationResultCodec,
    grouped: true,
    perform: (statements, command) => statements.writeReservation(command),
  }),
  /** The outcomes expired at `nowMs`, at most `max` of them, forgotten. */
  forgetExpiredOutcomes: operation<Sweep, number>({
    request: {
      write: ({ nowMs, max }, out) => out.push(nowMs, max),
      read: (fields) => ({ nowMs: fields.integer('time'), max: fields.integer('most') }),
    },
    reply: countCodec,
    grouped: false,
    perform: (statements, { nowMs, max }) => statements.forgetExpiredOutcomes(nowMs, max),
  }),
  /** One pet's lapsed holds marked at `nowMs` (see decideLapse). */
  markLapse: operation<PetAt, number>({
    request: {
      write: ({ petId, nowMs }, out) => out.push(petId, nowMs),
      read: (fields) => ({ petId: fields.petId('pet'), nowMs: fields.integer('time') }),
    },
    reply: countCodec,
    grouped: false,
    perform: (statements, { petId, nowMs }) => statements.reservations.markLapse(petId, nowMs),
  }),
};

export type OperationName = keyof typeof TABLE;

/** What each operation takes and answers, read off the table (indexed by a name, for the generic callers). */
type Shapes = {
  readonly [N in OperationName]: (typeof TABLE)[N] extends Operation<infer Request, infer Reply>
    ? { readonly request: Request; readonly reply: Reply }
    : never;
};
export type RequestOf<N extends OperationName> = Shapes[N]['request'];
export type ReplyOf<N extends OperationName> = Shapes[N]['reply'];

/** Every store operation by its name, typed so that a name gives its own request and answer. */
export const OPERATIONS: { readonly [N in OperationName]: Operation<RequestOf<N>, ReplyOf<N>> } = TABLE;

export const isOperationName = (name: unknown): name is OperationName =>
  typeof name === 'string' && Object.hasOwn(OPERATIONS, name);
