import type { StockWrite, StockWriteResult } from '../../application/ports/inventory-repository.js';

/** What the store's thread posts to the writer thread. Structured clone carries the bigint ids exactly. */
export type WriterRequest =
  | { readonly kind: 'write'; readonly id: number; readonly command: StockWrite }
  | { readonly kind: 'forget'; readonly id: number; readonly nowMs: number; readonly max: number }
  /** Commit what is pending, answer it, close the connection and end the thread. */
  | { readonly kind: 'close' };

/** An error as it crosses threads: structured clone would keep an Error's message, not its `code`. */
export interface ErrorData {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly stack?: string;
}

/**
 * The answer to one request: a write's result or the number of outcomes forgotten, or the error it
 * failed with. The writer thread posts the answers of a batch together, once its COMMIT has returned.
 */
export type WriterReply =
  | { readonly id: number; readonly value: StockWriteResult | number }
  | { readonly id: number; readonly error: ErrorData };

/** What the writer thread posts: answers, and the size of each group commit they come from (for metrics). */
export interface WriterAnswers {
  readonly replies: readonly WriterReply[];
  readonly committed: readonly number[];
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
