import { userInfo } from 'node:os';
import { isScope, SCOPES, type Scope } from '../../domain/api-key.js';
import { holdsControlCharacter } from '../../domain/plain-text.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { CommandLine } from './command-line.js';

const quoted = (text: string): string => JSON.stringify(text);

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest span a duration may name: 100 years of days, far past any key's useful life. */
const DURATION_MAX_MS = 36_500 * 86_400_000;

export const DURATION_RULE = 'must be a whole number with a unit (ms, s, m, h or d), such as 90s, 24h or 30d; or 0';

/** A span such as `3s`, `24h` or `30d` (one unit, no sign), or `0`, in milliseconds. */
export function durationOption(name: string, text: string): Result<number, string> {
  const match = /^(\d{1,15})(ms|s|m|h|d)$/.exec(text);
  const ms =
    text === '0' ? 0 : match === null ? Number.NaN : Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  if (!Number.isSafeInteger(ms)) return fail(`--${name} ${DURATION_RULE} (got ${quoted(text)})`);
  if (ms > DURATION_MAX_MS) return fail(`--${name} must be at most 36500d (got ${quoted(text)})`);
  return ok(ms);
}

// RFC 3339 section 5.6: full-date "T" full-time, with a Z or a numeric offset; T, Z and a space for T
// as the RFC allows. A leap second (:60) is refused: JavaScript time has none.
const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export const TIME_RULE = 'must be an RFC 3339 time such as 2026-12-31T23:59:59Z';

/** An RFC 3339 time in Unix milliseconds; a date or time that does not exist (February 30) is refused. */
export function timeOption(name: string, text: string): Result<number, string> {
  const m = RFC_3339.exec(text);
  const refused = fail(`--${name} ${TIME_RULE} (got ${quoted(text)})`);
  if (m === null) return refused;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const local = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis));
  const exists =
    local.getUTCFullYear() === year &&
    local.getUTCMonth() === month - 1 &&
    local.getUTCDate() === day &&
    local.getUTCHours() === hour &&
    local.getUTCMinutes() === minute &&
    local.getUTCSeconds() === second;
  const offsetHours = Number(m[10] ?? 0);
  const offsetMinutes = Number(m[11] ?? 0);
  if (!exists || offsetHours > 23 || offsetMinutes > 59) return refused;
  const sign = m[9] === '-' ? -1 : 1;
  return ok(local.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
}

export const SCOPES_RULE = `must list one or more of ${SCOPES.join(', ')}, separated by commas`;

/** Scopes as `inventory:read,inventory:write` (commas or spaces between them). */
export function scopesOption(name: string, text: string): Result<readonly Scope[], string> {
  const words = text.split(/[\s,]+/).filter((w) => w !== '');
  if (words.length === 0 || !words.every(isScope)) return fail(`--${name} ${SCOPES_RULE} (got ${quoted(text)})`);
  return ok(words);
}

/** The longest actor name the audit trail takes. */
export const ACTOR_MAX = 200;

/** Who the operating system says runs the command; `unknown` where it cannot tell (a container without a user). */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/** The actor of an admin change: `--actor`, else the operating system's user. */
export function actorOf(line: CommandLine): Result<string, string> {
  const given = line.options.get('actor');
  if (given === undefined) return ok(osUser());
  if (given.trim() === '' || given.length > ACTOR_MAX || holdsControlCharacter(given)) {
    return fail(`--actor must be 1 to ${ACTOR_MAX} characters without control characters (got ${quoted(given)})`);
  }
  return ok(given);
}
