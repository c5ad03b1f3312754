import { integerInRange } from '../../domain/decimal-integer.js';
import { type PetId, parsePetId } from '../../domain/pet-id.js';
import { isPetStatus, PET_STATUSES, type PetStatus } from '../../domain/pet-status.js';
import { holdsControlCharacter } from '../../domain/plain-text.js';
import { isPlan, LIMIT_MAX, PLANS, type Plan } from '../../domain/plan.js';
import { QUANTITY_MAX, type Quantity, quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';

/** The words of the CLI's messages about values, shared by options and import files. */
export const INT64_RULE = 'must be a whole number from -9223372036854775808 to 9223372036854775807';
export const QUANTITY_RULE = `must be a whole number from 0 to ${QUANTITY_MAX}`;
export const LIMIT_RULE = `must be a whole number from 1 to ${LIMIT_MAX}`;
export const STATUS_RULE = `must be one of ${PET_STATUSES.join(', ')}`;

/** The most of a refused value a message repeats, in characters. */
const QUOTED_MAX = 64;

/** A refused value as a message shows it: quoted, escaped, and cut to {@link QUOTED_MAX} characters. */
export const quoted = (text: string): string =>
  JSON.stringify(text.length > QUOTED_MAX ? `${text.slice(0, QUOTED_MAX)}…` : text);

export function int64Option(name: string, text: string): Result<PetId, string> {
  const id = parsePetId(text);
  return id === undefined ? fail(`--${name} ${INT64_RULE} (got ${quoted(text)})`) : ok(id);
}

// Counts follow the service's one integer rule, as a PATCH quantity does: `5.0` and `1e3` are whole
// numbers, `4.99999999999999999999` is not (where Number() would round it to 5). Ids, above, have one
// spelling only.

export function quantityOption(name: string, text: string): Result<Quantity, string> {
  const value = integerInRange(text, 0, QUANTITY_MAX);
  return value === undefined ? fail(`--${name} ${QUANTITY_RULE} (got ${quoted(text)})`) : ok(quantity(value));
}

export function limitOption(name: string, text: string): Result<number, string> {
  const value = integerInRange(text, 1, LIMIT_MAX);
  return value === undefined ? fail(`--${name} ${LIMIT_RULE} (got ${quoted(text)})`) : ok(value);
}

export function statusOption(name: string, text: string): Result<PetStatus, string> {
  return isPetStatus(text) ? ok(text) : fail(`--${name} ${STATUS_RULE} (got ${quoted(text)})`);
}

export function planOption(name: string, text: string): Result<Plan, string> {
  return isPlan(text) ? ok(text) : fail(`--${name} must be one of ${PLANS.join(', ')} (got ${quoted(text)})`);
}

/**
 * A text of at most `max` characters (UTF-16 code units, as the domain counts them), not blank, with no
 * control character; `content` may refuse more (the domain's rule for names).
 */
export function textOption(
  name: string,
  text: string,
  max: number,
  content: (text: string) => string | undefined = () => undefined,
): Result<string, string> {
  if (text.trim() === '') return fail(`--${name} must not be empty`);
  if (text.length > max) return fail(`--${name} must be at most ${max} characters (got ${text.length})`);
  if (holdsControlCharacter(text)) return fail(`--${name} must not hold a control character`);
  const problem = content(text);
  return problem === undefined ? ok(text) : fail(`--${name} ${problem}`);
}
