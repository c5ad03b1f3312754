import { type StockLevel, stockLevel } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import { isPetStatus } from '../../domain/pet-status.js';
import { type Quantity, quantity as toQuantity } from '../../domain/quantity.js';
import { isReservationOutcome } from '../../domain/reservation-outcome.js';
import { changeKindOf, type StockChangeKind } from '../../domain/stock-change.js';
import type { StoredClaim, StoredOutcome } from '../../domain/stock-decision.js';
import { isStockRefusal, type StockRefusal, type WrittenEntry } from '../../domain/stock-outcome.js';
import {
  decodeReservationOutcome,
  encodeReservationOutcome,
  type ReservationOutcomeJson,
} from './reservation-outcome-json.js';

/*
 * The outcome of a keyed stock write as the SQL stores keep it in a column, so that a retry is answered
 * as the first request was. Ids travel as decimal strings: JSON numbers would round them past 2^53.
 */

interface EntryJson {
  readonly id: string;
  /** Absent in the outcomes of 1.1, whose changes all set a count. */
  readonly kind?: StockChangeKind;
  readonly reason?: string | null;
  readonly petId: string;
  readonly before: readonly [number, string];
  readonly after: readonly [number, string];
  readonly actor: string;
  readonly atMs: number;
  readonly version: number;
  /** Absent in the outcomes stored before reservations, when nothing could be reserved. */
  readonly reserved?: number;
}

/** A refusal as the core makes it, its pet id as text: every kind of refusal crosses alike. */
type RefusalJson = Omit<StockRefusal, 'petId'> & { readonly petId: string };

/** The outcomes stored before commands of several pets: one pet, the request's own. */
type SinglePetJson =
  | { readonly kind: 'changed'; readonly change: Omit<EntryJson, 'version'>; readonly version: number }
  | { readonly kind: 'pet_not_found' }
  | { readonly kind: 'version_mismatch'; readonly currentVersion: number };

type OutcomeJson =
  | { readonly kind: 'written'; readonly entries: readonly EntryJson[] }
  | { readonly kind: 'refused'; readonly refusals: readonly RefusalJson[] }
  | ReservationOutcomeJson
  | SinglePetJson;

const entryJson = ({ change, version, reserved }: WrittenEntry): EntryJson => ({
  id: String(change.id),
  kind: change.kind,
  reason: change.reason,
  petId: String(change.after.petId),
  before: [change.before.quantity, change.before.status],
  after: [change.after.quantity, change.after.status],
  actor: change.actor,
  atMs: change.atMs,
  version,
  reserved,
});

const refusalJson = (refusal: StockRefusal): RefusalJson => ({ ...refusal, petId: String(refusal.petId) });

/** A refusal read back, through the core's check of its shape. */
function refusalOf(json: RefusalJson): StockRefusal {
  const refusal = { ...json, petId: BigInt(json.petId) };
  if (!isStockRefusal(refusal)) throw new Error(`a stored outcome has an unreadable refusal ${json.code}`);
  return refusal;
}

/** The outcome as JSON text. */
export function encodeOutcome(outcome: StoredOutcome): string {
  let json: OutcomeJson;
  if (isReservationOutcome(outcome)) json = encodeReservationOutcome(outcome);
  else if (outcome.kind === 'written') json = { kind: 'written', entries: outcome.entries.map(entryJson) };
  else json = { kind: 'refused', refusals: outcome.refusals.map(refusalJson) };
  return JSON.stringify(json);
}

function itemOf(petId: bigint, [quantity, status]: readonly [number, string]): StockLevel {
  if (!isPetStatus(status)) throw new Error(`a stored outcome has the unknown status ${status}`);
  return stockLevel(petId, quantity, status);
}

function writtenOf(json: Omit<EntryJson, 'version'>, version: number): WrittenEntry {
  const petId = BigInt(json.petId);
  return {
    change: {
      id: BigInt(json.id),
      kind: changeKindOf(json.kind ?? 'set'),
      before: itemOf(petId, json.before),
      after: itemOf(petId, json.after),
      actor: json.actor,
      atMs: json.atMs,
      reason: json.reason ?? null,
    },
    version,
    reserved: toQuantity(json.reserved ?? 0) as Quantity,
  };
}

/**
 * Reads back what `encodeOutcome` wrote, and the single-pet outcomes of earlier releases, which name no
 * pet when refused: `petId` is the pet of the request the claim was made for (a replay answers only the
 * same method, path and body). A corrupt record throws rather than replaying nonsense.
 */
export function decodeOutcome(text: string, petId: PetId | undefined): StoredOutcome {
  const parsed = JSON.parse(text) as OutcomeJson;
  if (parsed.kind === 'reservation' || parsed.kind === 'reservation_refused') return decodeReservationOutcome(parsed);
  // Only a stock write names a pet; the earlier outcomes below were all of one.
  if (petId === undefined && parsed.kind !== 'written' && parsed.kind !== 'refused') {
    throw new Error('an outcome of a stock write is replayed for a request that names no pet');
  }
  switch (parsed.kind) {
    case 'written':
      return { kind: 'written', entries: parsed.entries.map((entry) => writtenOf(entry, entry.version)) };
    case 'refused':
      return { kind: 'refused', refusals: parsed.refusals.map(refusalOf) };
    case 'changed':
      return { kind: 'written', entries: [writtenOf(parsed.change, parsed.version)] };
    case 'pet_not_found':
      return { kind: 'refused', refusals: [{ index: 0, code: 'pet_not_found', petId: petId as PetId }] };
    case 'version_mismatch':
      return {
        kind: 'refused',
        refusals: [
          { index: 0, code: 'precondition_failed', petId: petId as PetId, currentVersion: parsed.currentVersion },
        ],
      };
    default:
      throw new Error('a stored outcome has an unknown kind');
  }
}

/**
 * A claim as a SQL store read it, its outcome decoded only when asked: the core looks at it only to
 * replay it, which needs the same request, while a key used before on another kind of request (whose
 * earlier outcomes may need a pet to be read) is refused on its fingerprint alone.
 */
export function storedClaimOf(
  fingerprint: string,
  expiresAtMs: number,
  outcomeText: string,
  petId: PetId | undefined,
): StoredClaim {
  let outcome: StoredOutcome | undefined;
  return {
    fingerprint,
    expiresAtMs,
    get outcome(): StoredOutcome {
      outcome ??= decodeOutcome(outcomeText, petId);
      return outcome;
    },
  };
}
