import { DEFAULT_HOLD_LIMITS, type HoldLimits, isTtlSeconds } from '../domain/reservation.js';
import type { Clock } from './ports/clock.js';
import type { KeyGenerator, KeyHasher } from './ports/key-crypto.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { StoragePorts } from './ports/storage-ports.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS, StockCommandRunner } from './stock-command-runner.js';
import { AddPets } from './use-cases/add-pets.js';
import { AdjustStock } from './use-cases/adjust-stock.js';
import { AdmitRequest } from './use-cases/admit-request.js';
import { Authenticate } from './use-cases/authenticate.js';
import { ExpireReservations } from './use-cases/expire-reservations.js';
import { ExportPets } from './use-cases/export-pets.js';
import { ForgetExpiredOutcomes } from './use-cases/forget-expired-outcomes.js';
import { GetApiKey } from './use-cases/get-api-key.js';
import { GetInventoryItem } from './use-cases/get-inventory-item.js';
import { GetPet } from './use-cases/get-pet.js';
import { GetRateLimit } from './use-cases/get-rate-limit.js';
import { GetReservation } from './use-cases/get-reservation.js';
import { ImportOrders } from './use-cases/import-orders.js';
import { IssueApiKey, SYSTEM_ACTOR } from './use-cases/issue-api-key.js';
import { ListAllStockChanges } from './use-cases/list-all-stock-changes.js';
import { ListApiKeys } from './use-cases/list-api-keys.js';
import { ListHolds } from './use-cases/list-holds.js';
import { ListInventory } from './use-cases/list-inventory.js';
import { ListKeyAudit } from './use-cases/list-key-audit.js';
import { ListOrders } from './use-cases/list-orders.js';
import { ListStockChanges } from './use-cases/list-stock-changes.js';
import { NameKeys } from './use-cases/name-keys.js';
import { ReleaseEndedKeysHolds, ReleaseHolds } from './use-cases/release-holds.js';
import { ReserveStock } from './use-cases/reserve-stock.js';
import { RevokeApiKey } from './use-cases/revoke-api-key.js';
import { RollApiKey } from './use-cases/roll-api-key.js';
import { SetKeyExpiry } from './use-cases/set-key-expiry.js';
import { CommitReservation, ReleaseReservation } from './use-cases/settle-reservation.js';
import { UpdateStock } from './use-cases/update-stock.js';
import { UpdateStockBatch } from './use-cases/update-stock-batch.js';

/** Every port the core needs: the storage ports but the webhooks' (see webhook-core.ts), limiter, time and key crypto. */
export interface InventoryPorts extends Omit<StoragePorts, 'webhooks'> {
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly keyGenerator: KeyGenerator;
  readonly keyHasher: KeyHasher;
}

/** Settings of the use cases; each has a default. */
export interface InventoryCoreOptions {
  /** How long the outcome of a write with an idempotency key is kept for its retries: 24 h. */
  readonly idempotencyTtlMs?: number;
  /** How many reservations a key may hold at once, and for how long each: DEFAULT_HOLD_LIMITS. */
  readonly holdLimits?: HoldLimits;
}

/** Every use case, built over one set of ports: what createInventoryCore makes, named once there. */
export type InventoryCore = Readonly<ReturnType<typeof createInventoryCore>>;

/** Builds every use case over `ports`: the whole core, without a container. */
export function createInventoryCore(ports: InventoryPorts, options: InventoryCoreOptions = {}) {
  const idempotencyTtlMs = options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  if (!Number.isSafeInteger(idempotencyTtlMs) || idempotencyTtlMs < 1) {
    throw new RangeError(`idempotencyTtlMs ${idempotencyTtlMs} is not a positive whole number of milliseconds`);
  }
  const holdLimits = options.holdLimits ?? DEFAULT_HOLD_LIMITS;
  if (!Number.isSafeInteger(holdLimits.perKey) || holdLimits.perKey < 1) {
    throw new RangeError(`holdLimits.perKey ${holdLimits.perKey} is not a positive whole number`);
  }
  if (!isTtlSeconds(holdLimits.ttlMs / 1_000)) {
    throw new RangeError(`holdLimits.ttlMs ${holdLimits.ttlMs} is not a whole number of seconds from 1 to a day`);
  }
  // One runner for every write use case: a key still being written is known to all of them.
  const stockWrites = new StockCommandRunner(ports.inventory, ports.clock, { idempotencyTtlMs });
  const releaseHolds = new ReleaseHolds(ports.inventory, stockWrites, ports.clock);
  return {
    listInventory: new ListInventory(ports.inventory),
    getInventoryItem: new GetInventoryItem(ports.inventory),
    updateStock: new UpdateStock(stockWrites),
    adjustStock: new AdjustStock(stockWrites),
    updateStockBatch: new UpdateStockBatch(stockWrites),
    listStockChanges: new ListStockChanges(ports.changes),
    listAllStockChanges: new ListAllStockChanges(ports.feed),
    nameKeys: new NameKeys(ports.keys),
    reserveStock: new ReserveStock(stockWrites, holdLimits, { keys: ports.keys, clock: ports.clock }),
    getReservation: new GetReservation(ports.inventory, ports.clock),
    commitReservation: new CommitReservation(stockWrites),
    releaseReservation: new ReleaseReservation(stockWrites),
    forgetExpiredOutcomes: new ForgetExpiredOutcomes(ports.inventory, ports.clock),
    expireReservations: new ExpireReservations(ports.inventory, ports.clock),
    listHolds: new ListHolds(ports.inventory, ports.clock),
    releaseHolds,
    releaseEndedKeysHolds: new ReleaseEndedKeysHolds(
      ports.inventory,
      ports.keys,
      releaseHolds,
      ports.clock,
      SYSTEM_ACTOR,
    ),
    authenticate: new Authenticate(ports.keys, ports.keyHasher, ports.clock),
    admitRequest: new AdmitRequest(ports.limiter),
    getRateLimit: new GetRateLimit(ports.limiter),
    getPet: new GetPet(ports.pets),
    listOrders: new ListOrders(ports.orders),
    issueApiKey: new IssueApiKey(ports.keys, ports.keyGenerator, ports.keyHasher, ports.clock),
    listApiKeys: new ListApiKeys(ports.keys),
    revokeApiKey: new RevokeApiKey(ports.keys, ports.keyHasher, ports.clock, releaseHolds),
    rollApiKey: new RollApiKey(ports.keys, ports.keyGenerator, ports.keyHasher, ports.clock),
    setKeyExpiry: new SetKeyExpiry(ports.keys, ports.clock),
    getApiKey: new GetApiKey(ports.keys),
    listKeyAudit: new ListKeyAudit(ports.keys),
    addPets: new AddPets(ports.pets),
    importOrders: new ImportOrders(ports.orders),
    exportPets: new ExportPets(ports.pets),
  };
}
