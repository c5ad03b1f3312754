/**
 * The pet store inventory core, for embedding in other services: `petstore-inventory`.
 *
 * The domain (values and rules) and the use cases do no I/O; they reach storage, rate limiting, time
 * and key crypto through ports. Pick adapters for the ports — in memory (here), SQLite
 * (`petstore-inventory/sqlite`), PostgreSQL (`/postgres`), Redis (`/redis`), or your own that pass the
 * contract suites of `petstore-inventory/testing` — and build the use cases with
 * {@link createInventoryCore}. `petstore-inventory/koa` serves them over HTTP.
 *
 * This entry needs no package and imports no `node:` module: it loads in Node, in a browser and in a
 * worker (randomness and hashing through `globalThis.crypto`).
 *
 * @packageDocumentation
 */

// Adapters that need nothing installed: storage and limiting in memory, the failover limiter, and the
// platform's clock and Web Crypto. The others are subpaths: petstore-inventory/sqlite, /postgres,
// /redis, /koa, /client, /server.
export type {
  CircuitState,
  FailoverRateLimiterOptions,
  FailoverStatus,
} from './adapters/failover/failover-rate-limiter.js';
export { FailoverRateLimiter } from './adapters/failover/failover-rate-limiter.js';
export { UnavailableRateLimiter } from './adapters/failover/unavailable-rate-limiter.js';
export { createMemoryAdapters, createMemoryStorage } from './adapters/memory/memory-adapters.js';
export { MemoryApiKeyStore } from './adapters/memory/memory-api-key-store.js';
export { MemoryInventoryRepository } from './adapters/memory/memory-inventory-repository.js';
export { MemoryOrderBook } from './adapters/memory/memory-order-book.js';
export { MemoryPetCatalog } from './adapters/memory/memory-pet-catalog.js';
export { MemoryRateLimiter } from './adapters/memory/memory-rate-limiter.js';
export { MemoryStockChangeFeed } from './adapters/memory/memory-stock-change-feed.js';
export { MemoryStore } from './adapters/memory/memory-store.js';
export { MemoryWebhookStore } from './adapters/memory/memory-webhook-store.js';
export { newReservationId } from './adapters/web/reservation-id.js';
export { wallClock as systemClock } from './adapters/web/wall-clock.js';
export { WebCryptoKeyCrypto } from './adapters/web/web-key-crypto.js';
// Application: ports, use cases, and the core built from them.
export type { InventoryCore, InventoryCoreOptions, InventoryPorts } from './application/inventory-core.js';
export { createInventoryCore } from './application/inventory-core.js';
export type { ApiKeyStore, KeyChange, KeyRoll, KeyUse, NewApiKey } from './application/ports/api-key-store.js';
export type { Clock } from './application/ports/clock.js';
export type { HoldQuery, InventoryQuery, InventoryRepository } from './application/ports/inventory-repository.js';
export type { KeyGenerator, KeyHasher } from './application/ports/key-crypto.js';
export type { OrderBook, OrderRefusal } from './application/ports/order-book.js';
export type { OutageLogger } from './application/ports/outage-logger.js';
export type { DuplicatePet, NewPet, PetCatalog, StockedPet } from './application/ports/pet-catalog.js';
export type {
  LocalAnswers,
  RateLimitAnswer,
  RateLimiter,
  RateLimiterUnavailable,
  RateLimitPeek,
} from './application/ports/rate-limiter.js';
export type { FeedEntry, StockChangeFeed } from './application/ports/stock-change-feed.js';
export type { StockChangeLog, StockChangePage } from './application/ports/stock-change-log.js';
export type { StoragePorts } from './application/ports/storage-ports.js';
export type {
  WebhookAnswer,
  WebhookMessage,
  WebhookSecrets,
  WebhookSender,
  WebhookUrlCheck,
} from './application/ports/webhook-delivery.js';
export type {
  DeliveryAttempt,
  LeasedDelivery,
  NewWebhookEndpoint,
  OutboxStats,
  Settlement,
  WebhookStore,
} from './application/ports/webhook-store.js';
export type {
  ReservationWriteRequest,
  StockCommandOptions,
  StockWriteRequest,
} from './application/stock-command-runner.js';
export { DEFAULT_IDEMPOTENCY_TTL_MS, StockCommandRunner } from './application/stock-command-runner.js';
export { AddPets } from './application/use-cases/add-pets.js';
export type { AdjustStockInput } from './application/use-cases/adjust-stock.js';
export { AdjustStock } from './application/use-cases/adjust-stock.js';
export { AdmitRequest } from './application/use-cases/admit-request.js';
export { Authenticate } from './application/use-cases/authenticate.js';
export type { AttemptOutcome, DeliveryOptions, DeliveryRound } from './application/use-cases/deliver-stock-events.js';
export { DEFAULT_DELIVERY_OPTIONS, DeliverStockEvents } from './application/use-cases/deliver-stock-events.js';
export { EXPIRE_BATCH, ExpireReservations } from './application/use-cases/expire-reservations.js';
export { ExportPets } from './application/use-cases/export-pets.js';
export { FORGET_BATCH, ForgetExpiredOutcomes } from './application/use-cases/forget-expired-outcomes.js';
export {
  FORGET_DELIVERIES_BATCH,
  ForgetSettledDeliveries,
  SETTLED_DELIVERY_RETENTION_MS,
} from './application/use-cases/forget-settled-deliveries.js';
export { GetApiKey } from './application/use-cases/get-api-key.js';
export { GetInventoryItem } from './application/use-cases/get-inventory-item.js';
export { GetPet } from './application/use-cases/get-pet.js';
export { GetRateLimit } from './application/use-cases/get-rate-limit.js';
export { GetReservation } from './application/use-cases/get-reservation.js';
export { ImportOrders } from './application/use-cases/import-orders.js';
export type { ExpiryChoice, IssueApiKeyInput, IssuedKey } from './application/use-cases/issue-api-key.js';
export { IssueApiKey, SYSTEM_ACTOR } from './application/use-cases/issue-api-key.js';
export type { ListAllStockChangesInput } from './application/use-cases/list-all-stock-changes.js';
export { ListAllStockChanges } from './application/use-cases/list-all-stock-changes.js';
export { ListApiKeys } from './application/use-cases/list-api-keys.js';
export type { ListHoldsInput } from './application/use-cases/list-holds.js';
export { HOLDS_PAGE, ListHolds } from './application/use-cases/list-holds.js';
export { ListInventory } from './application/use-cases/list-inventory.js';
export { KEY_AUDIT_LIMIT_MAX, ListKeyAudit } from './application/use-cases/list-key-audit.js';
export { ListOrders } from './application/use-cases/list-orders.js';
export type { ListStockChangesInput } from './application/use-cases/list-stock-changes.js';
export { ListStockChanges } from './application/use-cases/list-stock-changes.js';
export { RELEASE_BATCH, ReleaseEndedKeysHolds, ReleaseHolds } from './application/use-cases/release-holds.js';
export type { ReserveStockInput } from './application/use-cases/reserve-stock.js';
export { ReserveStock } from './application/use-cases/reserve-stock.js';
export { RevokeApiKey } from './application/use-cases/revoke-api-key.js';
export { DEFAULT_ROLL_GRACE_MS, RollApiKey } from './application/use-cases/roll-api-key.js';
export { SetKeyExpiry } from './application/use-cases/set-key-expiry.js';
export type { SettleReservationInput } from './application/use-cases/settle-reservation.js';
export { CommitReservation, ReleaseReservation } from './application/use-cases/settle-reservation.js';
export type {
  ExpectedVersion,
  OnePetWriteFailure,
  OnePetWriteInput,
  OnePetWriteResult,
  UpdatedStock,
  UpdateStockInput,
} from './application/use-cases/update-stock.js';
export { expectedVersionsOf, UpdateStock, writeOnePet } from './application/use-cases/update-stock.js';
export type { UpdateStockBatchInput } from './application/use-cases/update-stock-batch.js';
export { UpdateStockBatch } from './application/use-cases/update-stock-batch.js';
export type { WebhookAdmin, WebhookPorts } from './application/webhook-core.js';
export { createWebhookAdmin } from './application/webhook-core.js';
// Domain: values, rules and the shapes of records.
export type {
  ApiKeyRecord,
  KeyAuditAction,
  KeyAuditEntry,
  KeyStanding,
  Principal,
  Scope,
} from './domain/api-key.js';
export {
  API_KEY_PATTERN,
  DEFAULT_SCOPES,
  grants,
  isScope,
  KEY_NAME_MAX,
  keyName,
  keyScopes,
  keyStanding,
  limitSubjectOf,
  looksLikeApiKey,
  SCOPES,
} from './domain/api-key.js';
export type { BanPolicy, BanState } from './domain/ban.js';
export { banPolicy, DEFAULT_BAN_POLICY } from './domain/ban.js';
export { integerInRange, integerOfDecimal } from './domain/decimal-integer.js';
export type { DueDelivery, TurnLimits } from './domain/delivery-turns.js';
export { takeTurns } from './domain/delivery-turns.js';
export type { DomainError, DomainErrorCode } from './domain/errors.js';
export type { FeedPosition } from './domain/feed-cursor.js';
export { FEED_START, feedCursor, parseFeedCursor } from './domain/feed-cursor.js';
export type { InventoryItem, StockLevel } from './domain/inventory-item.js';
export {
  availableFrom,
  availableOf,
  inventoryItem,
  levelOf,
  openingStockProblem,
  statusAfterStockChange,
  stockLevel,
  withStock,
} from './domain/inventory-item.js';
export type { LapseDecision, StoredHolding } from './domain/lapse-decision.js';
export { decideLapse } from './domain/lapse-decision.js';
export type { Order, OrderStatus } from './domain/order.js';
export { isOrderStatus, ORDER_STATUSES } from './domain/order.js';
export type { Pet, PetFields } from './domain/pet.js';
export {
  CATEGORY_NAME_MAX,
  checkPetFields,
  PET_NAME_MAX,
  PHOTO_URL_MAX,
  PHOTO_URLS_MAX,
  pet,
  petFieldsProblem,
  TAG_NAME_MAX,
  TAGS_MAX,
} from './domain/pet.js';
export type { PetId } from './domain/pet-id.js';
export { PET_ID_MAX, PET_ID_MIN, parsePetId, petId } from './domain/pet-id.js';
export type { PetStatus } from './domain/pet-status.js';
export { isPetStatus, PET_STATUSES } from './domain/pet-status.js';
export type { Plan, RateLimitPolicy } from './domain/plan.js';
export {
  isPlan,
  LIMIT_MAX,
  ownLimitsOf,
  PLAN_POLICIES,
  PLANS,
  policyForPlan,
  rateLimitPolicy,
} from './domain/plan.js';
export type { Quantity } from './domain/quantity.js';
export { isQuantity, QUANTITY_MAX, quantity } from './domain/quantity.js';
export type { RateLimitDecision, RateLimitOutcome, SubjectState, WindowReport } from './domain/rate-limit.js';
export { admitRequest, newSubjectState } from './domain/rate-limit.js';
export type { RateLimitStanding, WindowStanding } from './domain/rate-limit-standing.js';
export { headlineOf, standingOf } from './domain/rate-limit-standing.js';
export type { HoldLimits, KeyedReservation, Lapse, Reservation, ReservationState } from './domain/reservation.js';
export {
  DEFAULT_HOLD_LIMITS,
  DEFAULT_MAX_HOLD_TTL_SECONDS,
  DEFAULT_MAX_HOLDS_PER_KEY,
  DEFAULT_TTL_SECONDS,
  hasLapsed,
  holdsAt,
  isReservationId,
  isTtlSeconds,
  lapseOf,
  RESERVATION_STATES,
  reservationAt,
  stateAt,
  TTL_MAX_SECONDS,
} from './domain/reservation.js';
export type { ReservationDecision, ReservationWriteInput, ReservedEntry } from './domain/reservation-decision.js';
export { decideReservationWrite } from './domain/reservation-decision.js';
export type {
  ReservationCommand,
  ReservationOrder,
  ReservationRefusal,
  ReservationWriteFailure,
  ReservationWriteResult,
  WrittenReservation,
} from './domain/reservation-outcome.js';
export type { Result } from './domain/result.js';
export { fail, ok } from './domain/result.js';
export type { AttemptVerdict, RetrySchedule } from './domain/retry-schedule.js';
export { DEFAULT_RETRY_SCHEDULE, retryDelayMs, verdictOf } from './domain/retry-schedule.js';
export type { WindowCounter, WindowSpec } from './domain/sliding-window.js';
export { DAY_WINDOW, MINUTE_WINDOW } from './domain/sliding-window.js';
export type { StockChange } from './domain/stock-change.js';
export { isReason, REASON_MAX } from './domain/stock-change.js';
export type {
  AdjustStockOrder,
  IdempotencyClaim,
  OrderValue,
  SetStockOrder,
  StockCommand,
  StockOrder,
} from './domain/stock-command.js';
export { isDelta } from './domain/stock-command.js';
export type { ClaimFound, StockDecision, StockWriteInput, StoredClaim } from './domain/stock-decision.js';
export { answerFromClaim, decideStockWrite } from './domain/stock-decision.js';
export type { StockEventType, Subscription } from './domain/stock-event.js';
export { eventsOf, STOCK_EVENT_TYPES } from './domain/stock-event.js';
export type { PlannedDelivery } from './domain/stock-event-json.js';
export { deliveriesOf, stockEventJson } from './domain/stock-event-json.js';
export type {
  CommittedStock,
  StockOutcome,
  StockRefusal,
  StockWriteFailure,
  StockWriteResult,
  WrittenEntry,
} from './domain/stock-outcome.js';
export type { InventoryEntry } from './domain/stock-write.js';
export { FIRST_VERSION } from './domain/stock-write.js';
export type { WebhookEndpoint } from './domain/webhook-endpoint.js';
export { deliveryIdOf } from './domain/webhook-endpoint.js';
