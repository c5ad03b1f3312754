// @ts-check
import { keyStanding, PLAN_POLICIES, policyForPlan } from 'petstore-inventory';

/**
 * @import { ApiKeyStore, ApiKeyRecord, NewApiKey, KeyChange, KeyRoll, KeyUse, KeyAuditEntry } from 'petstore-inventory'
 * @import { Ledger } from './ledger.js'
 */

/** @implements {ApiKeyStore} */
export class LedgerKeys {
  /** @param {Ledger} ledger */
  constructor(ledger) {
    this.ledger = ledger;
  }

  /** @param {string} hash */
  async findByHash(hash) {
    const id = this.ledger.keyIds.get(hash);
    return id === undefined ? undefined : this.ledger.keys.get(id)?.record;
  }

  /** @param {string} id */
  async findById(id) {
    return this.ledger.keys.get(id)?.record;
  }

  /** @param {NewApiKey} key @param {string} actor */
  async add(key, actor) {
    this.insert(key);
    this.record(
      { action: 'create', keyId: key.id, newKeyId: null, expiresAtMs: key.expiresAtMs },
      actor,
      key.createdAtMs,
    );
  }

  async list() {
    return [...this.ledger.keys.values()]
      .map(({ record }) => record)
      .sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** @param {string} id @param {KeyChange} change */
  async revoke(id, change) {
    const entry = this.ledger.keys.get(id);
    if (entry === undefined) return undefined;
    if (entry.record.revokedAtMs === null) {
      entry.record = { ...entry.record, revokedAtMs: change.atMs };
      this.record({ action: 'revoke', keyId: id, newKeyId: null, expiresAtMs: null }, change.actor, change.atMs);
    }
    return entry.record;
  }

  /** @param {KeyRoll} roll @param {KeyChange} change */
  async roll(roll, change) {
    const entry = this.ledger.keys.get(roll.oldId);
    if (entry === undefined || keyStanding(entry.record, change.atMs) !== 'active') return undefined;
    // The new key first: it throws on a clash, leaving the old key as it was.
    this.insert(roll.newKey);
    entry.record = { ...entry.record, expiresAtMs: roll.oldExpiresAtMs };
    const fields = {
      action: /** @type {const} */ ('roll'),
      keyId: roll.oldId,
      newKeyId: roll.newKey.id,
      expiresAtMs: roll.oldExpiresAtMs,
    };
    this.record(fields, change.actor, change.atMs);
    return entry.record;
  }

  /** @param {string} id @param {number} expiresAtMs @param {KeyChange} change */
  async setExpiry(id, expiresAtMs, change) {
    const entry = this.ledger.keys.get(id);
    if (entry === undefined || entry.record.revokedAtMs !== null) return undefined;
    entry.record = { ...entry.record, expiresAtMs };
    this.record({ action: 'expire', keyId: id, newKeyId: null, expiresAtMs }, change.actor, change.atMs);
    return entry.record;
  }

  /** @param {readonly KeyUse[]} uses */
  async recordUses(uses) {
    for (const use of uses) {
      const entry = this.ledger.keys.get(use.keyId);
      if (entry === undefined) continue;
      const last = entry.record.lastUsedAtMs;
      if (last === null || use.atMs > last) entry.record = { ...entry.record, lastUsedAtMs: use.atMs };
    }
  }

  /** Newest first. @param {number} limit */
  async auditTrail(limit) {
    return this.ledger.audit.slice(-limit).reverse();
  }

  /** @param {NewApiKey} key */
  insert(key) {
    if (this.ledger.keys.has(key.id) || this.ledger.keyIds.has(key.hash)) {
      throw new Error(`an API key with id ${key.id} or the same hash already exists`);
    }
    // A key of a fixed plan carries that plan's limits; an enterprise key's own limits must be valid.
    if (key.plan === 'enterprise') policyForPlan(key.plan, key.policy);
    else if (
      key.policy.perMinute !== PLAN_POLICIES[key.plan].perMinute ||
      key.policy.perDay !== PLAN_POLICIES[key.plan].perDay
    ) {
      throw new RangeError(`a key on the ${key.plan} plan must carry that plan's limits`);
    }
    const { hash, ...fields } = key;
    this.ledger.keys.set(key.id, { record: { ...fields, revokedAtMs: null, lastUsedAtMs: null }, hash });
    this.ledger.keyIds.set(hash, key.id);
  }

  /** @param {Omit<KeyAuditEntry, 'seq' | 'actor' | 'atMs'>} fields @param {string} actor @param {number} atMs */
  record(fields, actor, atMs) {
    this.ledger.audit.push({ seq: this.ledger.audit.length + 1, ...fields, actor, atMs });
  }
}
