import type { ExpiryChoice } from '../../application/use-cases/issue-api-key.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { durationOption, timeOption } from './key-values.js';

export type Expiry = ExpiryChoice;

/** The help lines of the two expiry options, shared by the commands that take them. */
export const EXPIRY_OPTIONS_HELP = `  --expires-in SPAN  when the key stops working, from now: a whole number and a unit (ms, s, m, h, d),
                     such as 90s, 24h or 30d
  --expires-at TIME  when the key stops working, as an RFC 3339 time such as 2026-12-31T23:59:59Z`;

/**
 * The expiry `--expires-in` or `--expires-at` names (one of them at most), checked against `nowMs`. A
 * new key (`optional`) must expire after now; a key's new expiry (`required`) may be now (`0`), which
 * ends it at once, but not in the past, so that a mistyped year never reads as success.
 */
function expiryOf(
  options: ReadonlyMap<string, string>,
  nowMs: number,
  need: 'optional' | 'required',
): Result<Expiry | undefined, string> {
  const inText = options.get('expires-in');
  const atText = options.get('expires-at');
  if (inText !== undefined && atText !== undefined) return fail('give --expires-in or --expires-at, not both');
  if (inText !== undefined) {
    const span = durationOption('expires-in', inText);
    if (!span.ok) return span;
    if (need === 'optional' && span.value === 0) return fail('--expires-in must be more than 0 for a new key');
    return ok({ inMs: span.value });
  }
  if (atText !== undefined) {
    const at = timeOption('expires-at', atText);
    if (!at.ok) return at;
    const now = new Date(nowMs).toISOString();
    if (need === 'optional' && at.value <= nowMs) return fail(`--expires-at must be after now (${now}), got ${atText}`);
    if (at.value < nowMs) return fail(`--expires-at must not be before now (${now}), got ${atText}`);
    return ok({ atMs: at.value });
  }
  return ok(undefined);
}

/** The expiry of a new key: none when neither option is given. */
export const newKeyExpiry = (options: ReadonlyMap<string, string>, nowMs: number): Result<Expiry | undefined, string> =>
  expiryOf(options, nowMs, 'optional');

/** A key's new expiry: one of the options is required. */
export function changedExpiry(options: ReadonlyMap<string, string>, nowMs: number): Result<Expiry, string> {
  const expiry = expiryOf(options, nowMs, 'required');
  if (!expiry.ok) return expiry;
  return expiry.value === undefined ? fail('give --expires-in or --expires-at') : ok(expiry.value);
}
