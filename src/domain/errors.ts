/** The error codes the domain and its use cases can return. The HTTP adapter maps each to a status. */
export type DomainErrorCode =
  | 'invalid_pet_id'
  | 'unauthorized'
  | 'key_expired'
  | 'insufficient_scope'
  | 'pet_not_found'
  | 'precondition_failed'
  | 'insufficient_stock'
  | 'quantity_limit_exceeded'
  | 'quantity_below_reserved'
  | 'reservation_not_found'
  | 'reservation_committed'
  | 'reservation_released'
  | 'reservation_expired'
  | 'hold_limit_exceeded'
  | 'hold_ttl_exceeded'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  | 'rate_limited'
  | 'key_banned'
  | 'duplicate_pet'
  | 'duplicate_order'
  | 'key_not_found'
  | 'key_inactive'
  | 'invalid_expiry';

/** An expected failure: a machine-readable code and a message a person can act on. */
export interface DomainError<C extends DomainErrorCode = DomainErrorCode> {
  readonly code: C;
  readonly message: string;
}

export const domainError = <C extends DomainErrorCode>(code: C, message: string): DomainError<C> => ({
  code,
  message,
});
