import type { KeyAuditEntry } from '../../domain/api-key.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';

/** The most entries one listing of the audit trail answers. */
export const KEY_AUDIT_LIMIT_MAX = 10_000;

/** The newest entries of the key audit trail, newest first. */
export class ListKeyAudit {
  constructor(private readonly keys: ApiKeyStore) {}

  execute(input: { readonly limit: number }): Promise<readonly KeyAuditEntry[]> {
    if (!Number.isSafeInteger(input.limit) || input.limit < 1 || input.limit > KEY_AUDIT_LIMIT_MAX) {
      throw new RangeError(`the audit limit ${input.limit} is not a whole number from 1 to ${KEY_AUDIT_LIMIT_MAX}`);
    }
    return this.keys.auditTrail(input.limit);
  }
}
