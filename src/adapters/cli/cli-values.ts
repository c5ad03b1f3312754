import { type PetId, parsePetId } from '../../domain/pet-id.js';
import { isPetStatus, PET_STATUSES, type PetStatus } from '../../domain/pet-status.js';
import { isPlan, LIMIT_MAX, PLANS, type Plan } from '../../domain/plan.js';
import { isQuantity, QUANTITY_MAX, type Quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';

/** The words of the CLI's messages about values, shared by options and import files. */
export const INT64_RULE = 'must be a whole number from -9223372036854775808 to 9223372036854775807';
export const QUANTITY_RULE = `must be a whole number from 0 to ${QUANTITY_MAX}`;
export const LIMIT_RULE = `must be a whole number from 1 to ${LIMIT_MAX}`;
export const STATUS_RULE = `must be one of ${PET_STATUSES.join(', ')}`;

// Plain decimal digits only: `1e3`, `0x10`, ` 5` and `5.0` are refused, as `Number()` would accept them.
const DIGITS = /^(?:0|[1-9][0-9]*)$/;

const quoted = (text: string): string => JSON.stringify(text);

export function int64Option(name: string, text: string): Result<PetId, string> {
  const id = parsePetId(text);
  return id === undefined ? fail(`--${name} ${INT64_RULE} (got ${quoted(text)})`) : ok(id);
}

export function quantityOption(name: string, text: string): Result<Quantity, string> {
  const value = DIGITS.test(text) ? Number(text) : Number.NaN;
  return isQuantity(value) ? ok(value) : fail(`--${name} ${QUANTITY_RULE} (got ${quoted(text)})`);
}

export function limitOption(name: string, text: string): Result<number, string> {
  const value = DIGITS.test(text) ? Number(text) : Number.NaN;
  return value >= 1 && value <= LIMIT_MAX ? ok(value) : fail(`--${name} ${LIMIT_RULE} (got ${quoted(text)})`);
}

export function statusOption(name: string, text: string): Result<PetStatus, string> {
  return isPetStatus(text) ? ok(text) : fail(`--${name} ${STATUS_RULE} (got ${quoted(text)})`);
}

export function planOption(name: string, text: string): Result<Plan, string> {
  return isPlan(text) ? ok(text) : fail(`--${name} must be one of ${PLANS.join(', ')} (got ${quoted(text)})`);
}

export function textOption(name: string, text: string): Result<string, string> {
  return text.trim() === '' ? fail(`--${name} must not be empty`) : ok(text);
}
