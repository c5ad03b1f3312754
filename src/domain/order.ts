import type { PetId } from './pet-id.js';

export const ORDER_STATUSES = ['placed', 'approved', 'delivered'] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const isOrderStatus = (value: unknown): value is OrderStatus =>
  value === 'placed' || value === 'approved' || value === 'delivered';

/** A store order (the public Petstore shape). */
export interface Order {
  readonly id: bigint;
  readonly petId: PetId;
  readonly quantity: number;
  /** ISO 8601 date-time. */
  readonly shipDate: string;
  readonly status: OrderStatus;
  readonly complete: boolean;
}
