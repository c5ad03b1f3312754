import { randomBytes } from 'node:crypto';

/** A new reservation id: `res_` and 128 random bits in hexadecimal, from a CSPRNG, so none can be guessed. */
export const newReservationId = (): string => `res_${randomBytes(16).toString('hex')}`;
