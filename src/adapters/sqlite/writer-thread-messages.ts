import { fail, ok, type Result } from '../../domain/result.js';
import { isOperationName, OPERATIONS, type OperationName, type ReplyOf, type RequestOf } from './store-operations.js';
import { describe, Fields, type Guard, isInteger, type Wire, WriterProtocolError } from './writer-thread-fields.js';

export { type Wire, WriterProtocolError } from './writer-thread-fields.js';

/*
 * The protocol between the store's thread and the SQLite writer thread. A request is a store operation's
 * name, an id and the operation's request; its answer, the id and what the operation answered. Each
 * operation's encoders and parsers are declared once, with the operation (store-operations.ts); the
 * messages below are the same for all of them. Whatever crosses is parsed where it lands, and a message
 * that does not parse is a WriterProtocolError (which fails its request, or the thread when no request
 * can be named), never a guess. A message is a flat array, `[tag, id, ...fields]`: structured clone writes out every property
 * name of every object it copies, so the same values in nested objects cost several times as much to
 * send, and a write crosses twice. It carries bigint ids exactly. The writes' own encoders and parsers
 * are in writer-thread-writes.ts, what every message is read with in writer-thread-fields.ts.
 */

/** Commit what is pending, answer it, close the connection and end the thread. */
export const CLOSE: Wire = ['close'];

/** The message of request `id`, operation `name`. */
export function requestMessage<N extends OperationName>(name: N, id: number, request: RequestOf<N>): Wire {
  const codec = OPERATIONS[name].request;
  if (codec.message !== undefined) return codec.message(name, id, request);
  const out: unknown[] = [name, id];
  codec.write(request, out);
  return out;
}

/** What the writer thread does with a request, with `close`, and with a request that does not parse. */
export interface RequestServer {
  serve<N extends OperationName>(name: N, id: number, request: RequestOf<N>): void;
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
  // Read by index: a destructuring of an array goes through its iterator.
  const name: unknown = message[0];
  const id: unknown = message[1];
  if (name === 'close' && message.length === 1) {
    server.close();
    return;
  }
  if (!isInteger(id)) throw new WriterProtocolError(`a request has ${describe(id)} as its id, not an integer`);
  if (!isOperationName(name)) {
    server.unreadable(id, new WriterProtocolError(`the request ${id} is of no operation known: ${describe(name)}`));
    return;
  }
  serveOperation(name, id, message, server);
}

function serveOperation<N extends OperationName>(name: N, id: number, message: Wire, server: RequestServer): void {
  let request: RequestOf<N>;
  try {
    const fields = new Fields(message, name, false);
    request = OPERATIONS[name].request.read(fields);
    fields.end();
  } catch (error) {
    const what = `the ${name} request ${id} does not parse`;
    server.unreadable(
      id,
      error instanceof WriterProtocolError ? error : new WriterProtocolError(what, { cause: error }),
    );
    return;
  }
  server.serve(name, id, request);
}

/** The message that answers request `id`, operation `name`. */
export function replyMessage<N extends OperationName>(name: N, id: number, reply: ReplyOf<N>): Wire {
  return OPERATIONS[name].reply.write(id, reply);
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
 * The answer of a request of operation `name`: what it answered, or the error it failed with (the writer
 * thread's, made again with its name, code and stack, or a WriterProtocolError when the reply does not
 * parse). `reply` is the message `replyId` read the id of.
 */
export function readReply<N extends OperationName>(name: N, reply: Wire): Result<ReplyOf<N>, Error> {
  const tag = reply[0];
  const fields = new Fields(reply, name, true);
  try {
    if (tag === 'error') return fail(errorOf(fields));
    const answer = OPERATIONS[name].reply.read(tag, fields);
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
