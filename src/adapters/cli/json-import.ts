import { readFile } from 'node:fs/promises';
import { parse } from 'lossless-json';
import * as v from 'valibot';
import { fail, ok, type Result } from '../../domain/result.js';

const hasCode = (error: unknown): error is Error & { code: string } =>
  error instanceof Error && typeof (error as { code?: unknown }).code === 'string';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
};

async function readText(path: string): Promise<Result<string, string>> {
  try {
    return ok(await readFile(path, 'utf8'));
  } catch (error) {
    // A file the user named that cannot be read is bad input; any other failure is thrown on.
    if (!hasCode(error)) throw error;
    return fail(`cannot read ${path}: ${REASONS[error.code] ?? error.code}`);
  }
}

/** `[2].tags[0].id`: where in the file an issue lies. */
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

/**
 * Reads a JSON file holding an array and checks each entry against `entry`. Numbers are parsed
 * losslessly (a plain JSON.parse rounds an id past 2^53 to a neighbour); the first problem found is
 * returned as a one-line message naming the file and the place in it.
 */
export async function readJsonArray<S extends v.GenericSchema>(
  path: string,
  entry: S,
  what: string,
): Promise<Result<v.InferOutput<S>[], string>> {
  const text = await readText(path);
  if (!text.ok) return text;
  let json: unknown;
  try {
    // A byte-order mark is not JSON, but editors write one.
    json = parse(text.value.replace(/^\uFEFF/, ''));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return fail(`${path} is not valid JSON: ${reason}`);
  }
  if (!Array.isArray(json)) return fail(`${path} must hold a JSON array of ${what}`);
  const parsed = v.safeParse(v.array(entry), json);
  if (!parsed.success) return fail(`${path}: ${describeIssue(parsed.issues[0])}`);
  return ok(parsed.output);
}
