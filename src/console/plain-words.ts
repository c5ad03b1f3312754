import type { ApiError } from '../client/petstore-client.js';

/** What the page learns when the API refuses the key itself. */
export type KeyRefusal = 'unauthorized' | 'key_expired';

/** Why the page signed out by itself, in words for staff. */
export const KEY_REFUSED: Readonly<Record<KeyRefusal, string>> = {
  unauthorized: 'This key is not valid (it may have been revoked or replaced). Ask for a new one.',
  key_expired: 'This key has expired. Ask for a new one.',
};

// What each refusal means to a person, and what to do; the API's own message (for developers) otherwise.
const PLAIN: Readonly<Record<string, string>> = {
  unauthorized: KEY_REFUSED.unauthorized,
  key_expired: KEY_REFUSED.key_expired,
  insufficient_scope: 'This key can only read the stock. Ask for a key that can change it.',
  pet_not_found: 'No pet has that number.',
  insufficient_stock: 'There is not that much in stock.',
  quantity_below_reserved: 'That is less than what is reserved for customers.',
  quantity_limit_exceeded: 'That number is too large.',
  rate_limited: 'Too many requests for now. Wait a moment and try again.',
  key_banned: 'This key is paused for a while after too many refused requests. Try again later.',
  unavailable: 'The service is busy or starting. Try again in a moment.',
  internal_error: 'The service failed. Try again; if it happens again, tell the team that runs it.',
};

export const plainRefusal = (error: ApiError): string => PLAIN[error.code] ?? `${error.message}.`;
