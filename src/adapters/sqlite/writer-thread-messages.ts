import type { PetId } from '../../domain/pet-id.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import {
  type Codec,
  describe,
  Fields,
  type Guard,
  isInteger,
  type ReplyCodec,
  type Wire,
  WriterProtocolError,
} from './writer-thread-fields.js';
import {
  reservationCommandCodec,
  reservationResultCodec,
  stockCommandCodec,
  stockResultCodec,
} from './writer-thread-writes.js';

export { type Wire, WriterProtocolError } from './writer-thread-fields.js';

/*
 * The protocol between the store's thread and the SQLite writer thread. Each kind of request is declared
 * once below, with what it carries, what it is answered, and for each of them the encoder beside the
 * parser; whatever crosses is parsed where it lands, and a message that does not parse is a
 * WriterProtocolError (which fails its request, or the thread when no request can be named), never a
 * guess. A message is a flat array, `[tag, id, ...fields]`: structured clone writes out every property
 * name of every object it copies, so the same values in nested objects cost several times as much to
 * send, and a write crosses twice. It carries bigint ids exactly. The writes' own encoders and parsers
 * are in writer-thread-writes.ts, what every message is read with in writer-thread-fields.ts.
 */

/** A sweep of the store: the outcomes expired at `nowMs`, at most `max` of them. */
export interface Sweep {
  readonly nowMs: number;
  readonly max: number;
}

const sweepCodec: Codec<Sweep> = {
  write({ nowMs, max }, out) {
    out.push(nowMs, max);
  },
  read(fields) {
    return { nowMs: fields.integer('time'), max: fields.integer('most') };
  },
};

/** The marking of one pet's lapsed holds at `nowMs` (see decideLapse). */
export interface LapseRequest {
  readonly petId: PetId;
  readonly nowMs: number;
}

const lapseCodec: Codec<LapseRequest> = {
  write({ petId, nowMs }, out) {
    out.push(petId, nowMs);
  },
  read(fields) {
    return { petId: fields.petId('pet'), nowMs: fields.integer('time') };
  },
};

/** How many rows a sweep or a lapse changed. */
const countCodec: ReplyCodec<number> = {
  write: (id, count) => ['count', id, count],
  read(tag, fields) {
    if (tag !== 'count') throw fields.error('is not a count');
    return fields.integer('count');
  },
};

/** Every kind of request: what it carries, and what it is answered when it does not fail. */
interface Exchanges {
  readonly write: { readonly request: StockCommand; readonly reply: StockWriteResult };
  readonly reserve: { readonly request: ReservationCommand; readonly reply: ReservationWriteResult };
  readonly forget: { readonly request: Sweep; readonly reply: number };
  readonly lapse: { readonly request: LapseRequest; readonly reply: number };
}

export type RequestKind = keyof Exchanges;
export type RequestOf<K extends RequestKind> = Exchanges[K]['request'];
export type ReplyOf<K extends RequestKind> = Exchanges[K]['reply'];

const EXCHANGES: {
  readonly [K in RequestKind]: { readonly request: Codec<RequestOf<K>>; readonly reply: ReplyCodec<ReplyOf<K>> };
} = {
  write: { request: stockCommandCodec, reply: stockResultCodec },
  reserve: { request: reservationCommandCodec, reply: reservationResultCodec },
  forget: { request: sweepCodec, reply: countCodec },
  lapse: { request: lapseCodec, reply: countCodec },
};

const isRequestKind = (kind: unknown): kind is RequestKind =>
  typeof kind === 'string' && Object.hasOwn(EXCHANGES, kind);

/** Commit what is pending, answer it, close the connection and end the thread. */
export const CLOSE: Wire = ['close'];

/** The message of request `id` of kind `kind`. */
export function requestMessage<K extends RequestKind>(kind: K, id: number, request: RequestOf<K>): Wire {
  const out: unknown[] = [kind, id];
  EXCHANGES[kind].request.write(request, out);
  return out;
}

/** What the writer thread does with each kind of request, with `close`, and with one that does not parse. */
export type RequestHandlers = { readonly [K in RequestKind]: (id: number, request: RequestOf<K>) => void };

export interface RequestServer {
  readonly requests: RequestHandlers;
  close(): void;
  /** A request that names its id but does not parse: it is answered with this error. */
  unreadable(id: number, error: WriterProtocolError): void;
}

/**
 * Parses one request and hands it to its handler. A request whose id cannot be read cannot be answered:
 * that throws, which ends the thread, and the store fails every request it had not answered.
 */
export function serveRequest(message: unknown, server: RequestServer): void {
  if (!Array.isArray(message)) throw new WriterProtocolError(`a request is ${describe(message)}, not an array`);
  const [kind, id] = message;
  if (kind === 'close' && message.length === 1) {
    server.close();
    return;
  }
  if (!isInteger(id)) throw new WriterProtocolError(`a request has ${describe(id)} as its id, not an integer`);
  if (!isRequestKind(kind)) {
    server.unreadable(id, new WriterProtocolError(`the request ${id} is of no kind known: ${describe(kind)}`));
    return;
  }
  serveKind(kind, id, message, server);
}

function serveKind<K extends RequestKind>(kind: K, id: number, message: Wire, server: RequestServer): void {
  let request: RequestOf<K>;
  try {
    const fields = new Fields(message, kind, false);
    request = EXCHANGES[kind].request.read(fields);
    fields.end();
  } catch (error) {
    const what = `the ${kind} request ${id} does not parse`;
    server.unreadable(
      id,
      error instanceof WriterProtocolError ? error : new WriterProtocolError(what, { cause: error }),
    );
    return;
  }
  const handle: RequestHandlers[K] = server.requests[kind];
  handle(id, request);
}

/** The message that answers request `id` of kind `kind`. */
export function replyMessage<K extends RequestKind>(kind: K, id: number, reply: ReplyOf<K>): Wire {
  return EXCHANGES[kind].reply.write(id, reply);
}

/**
 * The message of request `id`'s failure: the error's name, message, `code` (`SQLITE_BUSY`; structured
 * clone would keep an Error's message, not its code) and the writer thread's stack.
 */
export function errorReply(id: number, error: unknown): Wire {
  if (!(error instanceof Error)) return ['error', id, 'Error', String(error), undefined, undefined];
  const code: unknown = Reflect.get(error, 'code');
  return ['error', id, error.name, error.message, typeof code === 'string' ? code : undefined, error.stack];
}

/** The id a reply answers; a reply without one cannot be matched to a request, which throws. */
export function replyId(reply: unknown): number {
  if (!Array.isArray(reply)) throw new WriterProtocolError(`a reply is ${describe(reply)}, not an array`);
  const id: unknown = reply[1];
  if (!isInteger(id)) throw new WriterProtocolError(`a reply has ${describe(id)} as its id, not an integer`);
  return id;
}

/**
 * The answer of request `id` of kind `kind`: what it answered, or the error it failed with (the writer
 * thread's, made again with its name, code and stack, or a WriterProtocolError when the reply does not
 * parse). `reply` is the message `replyId` read the id of.
 */
export function readReply<K extends RequestKind>(kind: K, reply: Wire): Result<ReplyOf<K>, Error> {
  const tag = reply[0];
  const fields = new Fields(reply, kind, true);
  try {
    if (tag === 'error') return fail(errorOf(fields));
    const answer = EXCHANGES[kind].reply.read(tag, fields);
    fields.end();
    return ok(answer);
  } catch (error) {
    // A value the domain refuses to make again (a status, a quantity out of range) fails it too.
    if (error instanceof WriterProtocolError) return fail(error);
    return fail(new WriterProtocolError(`${fields.what} does not parse`, { cause: error }));
  }
}

function errorOf(fields: Fields): Error {
  const name = fields.string('error name');
  const message = fields.string('error message');
  const code = fields.optionalString('error code');
  const stack = fields.optionalString('error stack');
  fields.end();
  const error = Object.assign(new Error(message), code === undefined ? {} : { code });
  error.name = name;
  if (stack !== undefined) error.stack = stack;
  return error;
}

/** What the writer thread posts: the answers of a batch, and the size of each group commit they come from. */
export interface WriterAnswers {
  readonly replies: readonly Wire[];
  readonly committed: readonly number[];
}

const isWires: Guard<readonly Wire[]> = (value) => Array.isArray(value) && value.every(Array.isArray);

/** The answers the writer thread posted, checked in shape (each reply is read by `replyId`, `readReply`). */
export function readAnswers(message: unknown): WriterAnswers {
  if (typeof message !== 'object' || message === null) {
    throw new WriterProtocolError(`the writer thread posted ${describe(message)}, not its answers`);
  }
  const replies: unknown = Reflect.get(message, 'replies');
  const committed: unknown = Reflect.get(message, 'committed');
  if (!isWires(replies)) throw new WriterProtocolError('the writer thread posted answers whose replies are not arrays');
  if (!Array.isArray(committed) || !committed.every(isInteger)) {
    throw new WriterProtocolError('the writer thread posted answers whose commits are not counts');
  }
  return { replies, committed };
}
