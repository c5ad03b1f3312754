import type { Plan, RateLimitPolicy } from './plan.js';

/** An API key as the store keeps it: never the key itself, only what it grants. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly plan: Plan;
  /** The limits the key is held to: its plan's, or its own on the enterprise plan. */
  readonly policy: RateLimitPolicy;
  readonly label: string | null;
  readonly createdAtMs: number;
  readonly revokedAtMs: number | null;
}

/** A key is `psk_` and 40 base62 characters: 238 bits from a CSPRNG. */
export const API_KEY_PATTERN = /^psk_[0-9A-Za-z]{40}$/;

/** The longest label a key takes, in UTF-16 code units: enough for a customer's name and a note. */
export const KEY_LABEL_MAX = 200;

/** Makes a key's label, throwing on an empty one or one beyond KEY_LABEL_MAX: a bug of the caller. */
export function keyLabel(text: string): string {
  if (text.length === 0 || text.length > KEY_LABEL_MAX) {
    throw new RangeError(`a key label must have 1 to ${KEY_LABEL_MAX} characters, not ${text.length}`);
  }
  return text;
}

export const looksLikeApiKey = (text: string): boolean => API_KEY_PATTERN.test(text);

/** Who a request acts as, once its key is known. */
export interface Principal {
  readonly keyId: string;
  readonly plan: Plan;
  readonly policy: RateLimitPolicy;
}
