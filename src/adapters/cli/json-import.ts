import { type FileHandle, open } from 'node:fs/promises';
import * as v from 'valibot';
import { fail, ok, type Result } from '../../domain/result.js';
import { JsonArrayReader, JsonInputError } from '../shared/json-reader.js';
import { count, megabytes, type Progress } from './progress.js';

/**
 * A problem of an import file found while the store reads the stream. It is thrown through the store's
 * `addStream`, which then writes nothing and throws it on; the command turns it back into its message.
 */
export class ImportRefusal extends Error {
  override readonly name = 'ImportRefusal';
}

/**
 * Bytes read from the file at a time; the reader holds one such chunk and one entry. The entries a
 * chunk completes go to the store at once, as one batch: a batch kept across the next read would
 * outlive a young-generation collection, and every pet would then be garbage of the old generation,
 * which V8 lets grow by tens of MB before it collects it.
 */
const CHUNK_BYTES = 64 * 1024;

const hasCode = (error: unknown): error is Error & { code: string } =>
  error instanceof Error && typeof (error as { code?: unknown }).code === 'string';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EIO: 'input/output error',
};

/** A failure to open or read the file, named by its path; `undefined` for one that is no such failure. */
const readFailure = (path: string, error: unknown): string | undefined =>
  hasCode(error) ? `cannot read ${path}: ${REASONS[error.code] ?? error.code}` : undefined;

/** `.tags[0].id`: where in an entry an issue lies. */
function whereOf(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? [])
    .map((item) => (typeof item.key === 'number' ? `[${item.key}]` : `.${String(item.key)}`))
    .join('');
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const where = whereOf(issue);
  if (issue.type === 'strict_object' && issue.expected === 'never') return `${where} is not a known field`;
  if (issue.type === 'strict_object' && issue.received === 'undefined') return `${where} is missing`;
  return `${where} ${issue.message}`;
}

function describeJsonError(path: string, what: string, error: JsonInputError): string {
  switch (error.problem) {
    case 'not_array':
      return `${path} must hold a JSON array of ${what}`;
    case 'encoding':
      return `${path} is not UTF-8 text: ${error.message}; save it as UTF-8`;
    case 'limit':
      return `${path} holds more than an import takes: ${error.message}`;
    case 'syntax':
      return `${path} is not valid JSON: ${error.message}`;
  }
}

/** An import file, open: its entries as a stream of checked batches. */
export interface ImportFile<T> {
  /** Throws an ImportRefusal at the first problem: bytes, JSON, or an entry the schema refuses. */
  readonly batches: AsyncIterable<T[]>;
  close(): Promise<void>;
}

/**
 * Opens a JSON file holding an array, whose entries `batches` hands out checked against `entry`, read
 * as a stream: memory holds a chunk of the file and a batch of entries, however large the file. A file
 * that cannot be opened is refused here, before anything is read. Progress goes to `progress`.
 */
export async function openImportFile<S extends v.GenericSchema>(
  path: string,
  entry: S,
  what: string,
  progress: Progress,
): Promise<Result<ImportFile<v.InferOutput<S>>, string>> {
  let handle: FileHandle;
  let size: number;
  try {
    handle = await open(path, 'r');
    const stat = await handle.stat();
    if (stat.isDirectory()) {
      await handle.close();
      return fail(`cannot read ${path}: ${REASONS.EISDIR}`);
    }
    size = stat.size;
  } catch (error) {
    // A file the user named that cannot be read is bad input; any other failure is thrown on.
    const failure = readFailure(path, error);
    if (failure === undefined) throw error;
    return fail(failure);
  }
  return ok({ batches: batchesOf(handle, size, path, entry, what, progress), close: () => handle.close() });
}

async function* batchesOf<S extends v.GenericSchema>(
  handle: FileHandle,
  size: number,
  path: string,
  entry: S,
  what: string,
  progress: Progress,
): AsyncIterable<v.InferOutput<S>[]> {
  const reader = new JsonArrayReader();
  // One buffer for the whole file: the reader copies the little it keeps between chunks.
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let batch: v.InferOutput<S>[] = [];
  let entries = 0;
  let read = 0;
  let percent = -1;
  for (;;) {
    // A file that opens may still fail to read (/proc/self/mem, a failing disk): say which file.
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null).catch((error: unknown) => {
      const failure = readFailure(path, error);
      throw failure === undefined ? error : new ImportRefusal(failure);
    });
    read += bytesRead;
    let elements: unknown[];
    try {
      elements = bytesRead === 0 ? reader.end() : reader.push(chunk.subarray(0, bytesRead));
    } catch (error) {
      if (error instanceof JsonInputError) throw new ImportRefusal(describeJsonError(path, what, error));
      throw error;
    }
    for (const element of elements) {
      const parsed = v.safeParse(entry, element);
      if (!parsed.success) throw new ImportRefusal(`${path}: [${entries}]${describeIssue(parsed.issues[0])}`);
      batch.push(parsed.output);
      entries += 1;
    }
    // Once a percent at most: a terminal line per chunk would cost more than it tells.
    const now = size === 0 ? 100 : Math.floor((100 * read) / size);
    if (now !== percent) {
      percent = now;
      progress.show(`reading ${path}: ${now}% of ${megabytes(size)}, ${count(entries)} ${what}`);
    }
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
    if (bytesRead === 0) break;
  }
  progress.show(`read ${count(entries)} ${what} from ${path}; checking and writing them`);
}
