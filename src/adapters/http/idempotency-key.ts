import { createHash } from 'node:crypto';
import { fail, ok, type Result } from '../../domain/result.js';

// 1 to 255 visible ASCII characters: what the IETF httpapi Idempotency-Key draft and Stripe's clients
// send (a UUID, a ULID, a quoted string), and nothing that could split a log line or a header.
const IDEMPOTENCY_KEY = /^[!-~]{1,255}$/;

const KEY_MESSAGE = 'Idempotency-Key must be 1 to 255 visible ASCII characters, without spaces; a UUID will do';

/** The answer for a request without the header, most writes: one object, never changed. */
const NO_KEY: Result<string | undefined, string> = Object.freeze(ok(undefined));

/**
 * The request's `Idempotency-Key`, `undefined` when it sent none, or the message of a 400
 * `invalid_idempotency_key`. Two such headers reach here joined by a comma and a space, and so are refused.
 */
export function idempotencyKeyOf(field: string | readonly string[] | undefined): Result<string | undefined, string> {
  if (field === undefined) return NO_KEY;
  return typeof field === 'string' && IDEMPOTENCY_KEY.test(field) ? ok(field) : fail(KEY_MESSAGE);
}

/**
 * Names a request for its idempotency key: SHA-256 of the method, the path and the body's bytes. The body
 * is read as UTF-8 text, and a body the write accepts is valid UTF-8 (anything else is refused before
 * the write, unstored), so its text's UTF-8 encoding is the bytes received: a retry must send the same
 * bytes, spaces included, or it is another request. The path is the canonical one of the pet, so that
 * `/v1/inventory/%31` and `/v1/inventory/1` are one request.
 */
export function requestFingerprint(method: string, path: string, body: string): string {
  return createHash('sha256').update(method).update('\n').update(path).update('\n').update(body, 'utf8').digest('hex');
}
