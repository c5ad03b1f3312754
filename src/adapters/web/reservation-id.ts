import { hexOf } from './hex.js';

/**
 * A new reservation id: `res_` and 128 random bits in hexadecimal, from a CSPRNG, so none can be guessed.
 * The CSPRNG is the platform's Web Crypto (`globalThis.crypto`), the same in Node, browsers and workers.
 */
export const newReservationId = (): string => `res_${hexOf(globalThis.crypto.getRandomValues(new Uint8Array(16)))}`;
