import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { lapseOf, type Reservation } from '../../domain/reservation.js';
import { firstPetOf, type StockCommand } from '../../domain/stock-command.js';
import { type ClaimFound, decideStockWrite, type StockDecision } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { encodeOutcome, storedClaimOf } from '../sql/stock-outcome-json.js';
import { stripeOf } from './inventory-stamp.js';
import type { SqlValue, Transaction } from './postgres-database.js';
import { type HoldJson, holdOf } from './postgres-stock-write.js';
import {
  GROUP_CHANGE_IDS,
  GROUP_LOCK_CLAIMS,
  GROUP_LOCK_ROWS,
  GROUP_READ_CLAIMS,
  GROUP_READ_ROWS,
  GROUP_WRITE,
} from './stock-group-statements.js';

type RowRead = [id: bigint, quantity: number, status: string, version: bigint, held: number, holds: HoldJson[] | null];
type ClaimRead = [fingerprint: string | null, expiresAtMs: bigint | null, outcome: string | null];

/**
 * A pet as the group leaves it so far: as locked and read, then as each written command left it, so
 * that the next command of the same pet is decided on what the one before it wrote.
 */
interface PetState {
  quantity: number;
  status: string;
  /** The version stored as locked, which the group's one update of the row is conditional on. */
  readonly lockedVersion: bigint;
  /** The version the row has after the group's writes so far. */
  version: number;
  held: number;
  /** Its reservations still stored as held (those marked expired by an earlier command leave). */
  holds: readonly Reservation[];
  written: boolean;
}

/** What one command of a group answers: its result, or the error its decision threw (a bug). */
export type GroupOutcome =
  | { readonly ok: true; readonly result: StockWriteResult }
  | { readonly ok: false; readonly error: unknown };

/** Adds a row's values to their columns. */
function appendRow(columns: SqlValue[][], row: readonly SqlValue[]): void {
  for (const [index, value] of row.entries()) columns[index]?.push(value);
}

/** Each column of the group's write (see GROUP_WRITE), filled as the decisions are taken. */
class WriteColumns {
  readonly lapsed: string[] = [];
  readonly changes: SqlValue[][] = Array.from({ length: 10 }, () => []);
  readonly claims: SqlValue[][] = Array.from({ length: 5 }, () => []);

  /** Adds what a decision writes: its changes, its lapsed holds and its claim. */
  add(command: StockCommand, decision: StockDecision, lapsed: readonly string[]): void {
    this.lapsed.push(...lapsed);
    for (const { change } of decision.written) {
      const row: SqlValue[] = [
        change.id,
        change.after.petId,
        change.before.quantity,
        change.before.status,
        change.after.quantity,
        change.after.status,
        command.actor,
        command.atMs,
        change.kind,
        change.reason,
      ];
      appendRow(this.changes, row);
    }
    const claimed = decision.claimed;
    if (claimed === undefined) return;
    const { scope, key, fingerprint, expiresAtMs } = claimed.claim;
    const row: SqlValue[] = [scope, key, fingerprint, encodeOutcome(claimed.outcome), expiresAtMs];
    appendRow(this.claims, row);
  }

  /** The statement's parameters, with the pets' last states. */
  values(pets: readonly [PetId, PetState][]): SqlValue[] {
    const written = pets.filter(([, pet]) => pet.written);
    const [first] = written;
    return [
      written.map(([id]) => id),
      written.map(([, pet]) => pet.lockedVersion),
      written.map(([, pet]) => pet.version),
      written.map(([, pet]) => pet.quantity),
      written.map(([, pet]) => pet.status),
      written.map(([, pet]) => pet.held),
      this.lapsed,
      ...this.changes,
      ...this.claims,
      first === undefined ? 0 : stripeOf(first[0]),
    ];
  }

  writtenPets(pets: readonly [PetId, PetState][]): number {
    return pets.filter(([, pet]) => pet.written).length;
  }
}

/** A pet's entry as `atMs` sees it, with the ids of the holds that lapsed by then. */
function entryAt(petId: PetId, pet: PetState, atMs: number): { entry: InventoryEntry; lapsed: Reservation[] } {
  const lapse = lapseOf(pet.holds, atMs);
  // The domain re-checks the row (the status is cast only for the type): a corrupt row throws.
  const item = inventoryItem(petId, pet.quantity, pet.status as PetStatus, pet.held - lapse.quantity);
  return { entry: { item, version: pet.version + lapse.expired.length }, lapsed: [...lapse.expired] };
}

/** The claims of the group's commands that carry one, in their order. */
const claimsOf = (commands: readonly StockCommand[]) =>
  commands.flatMap((command) => (command.idempotency === undefined ? [] : [command.idempotency]));

/**
 * Does a group of stock commands in the transaction `tx`, in two round trips: the locks and the reads
 * (rows, claims, change ids), then the one statement that applies every decision, with COMMIT. Each
 * command is decided by the core alone, in the group's order, on its pets as the commands before it in
 * the group left them: a refused command writes nothing, and the others go on. Throws when a statement
 * fails: then nothing of the group is written.
 */
/** The latest of the commands' times: a hold still running then is running at each of them. */
const latestTimeOf = (commands: readonly StockCommand[]): number =>
  commands.reduce((latest, command) => Math.max(latest, command.atMs), Number.NEGATIVE_INFINITY);

export async function writeGroup(tx: Transaction, commands: readonly StockCommand[]): Promise<GroupOutcome[]> {
  const ids = [...new Set(commands.flatMap((command) => command.orders.map((order) => String(order.petId))))];
  const claims = claimsOf(commands);
  const orders = commands.reduce((sum, command) => sum + command.orders.length, 0);
  const idList = `{${ids.join(',')}}`;
  const scopes = claims.map((claim) => claim.scope);
  const keys = claims.map((claim) => claim.key);
  // One round trip: each statement is sent at once, and each runs once the one before it has ended.
  const [, locks, stored, rows, changeIds] = await Promise.all([
    tx.run(GROUP_LOCK_ROWS, [idList]),
    claims.length === 0 ? Promise.resolve([]) : tx.rows<[boolean]>(GROUP_LOCK_CLAIMS, [scopes, keys]),
    claims.length === 0 ? Promise.resolve([]) : tx.rows<ClaimRead>(GROUP_READ_CLAIMS, [scopes, keys]),
    tx.rows<RowRead>(GROUP_READ_ROWS, [idList, latestTimeOf(commands)]),
    tx.rows<[bigint]>(GROUP_CHANGE_IDS, [orders]),
  ]);
  const pets = new Map<bigint, PetState>();
  for (const [id, quantity, status, version, held, holds] of rows) {
    pets.set(id, {
      quantity,
      status,
      lockedVersion: version,
      version: Number(version),
      held,
      holds: (holds ?? []).map(holdOf(id as PetId)),
      written: false,
    });
  }
  const freeIds = changeIds.map(([id]) => id);
  const columns = new WriteColumns();
  let claimIndex = 0;
  const outcomes = commands.map((command): GroupOutcome => {
    const claim = command.idempotency;
    let found: ClaimFound | undefined;
    if (claim !== undefined) {
      const [had] = locks[claimIndex] ?? [false];
      const [fingerprint, expiresAtMs, outcome] = stored[claimIndex] ?? [null, null, null];
      claimIndex += 1;
      found = {
        heldElsewhere: !had,
        stored:
          fingerprint === null || expiresAtMs === null || outcome === null
            ? undefined
            : storedClaimOf(fingerprint, Number(expiresAtMs), outcome, firstPetOf(command)),
      };
    }
    try {
      return { ok: true, result: decideOne(command, found, pets, freeIds, columns) };
    } catch (error) {
      return { ok: false, error };
    }
  });
  const all = [...pets.entries()] as [PetId, PetState][];
  if (columns.writtenPets(all) === 0 && columns.claims[0]?.length === 0) {
    await tx.commit();
    return outcomes;
  }
  const [[[updated, recorded, claimed] = [-1, -1, -1]]] = await Promise.all([
    tx.rows<[number, number, number]>(GROUP_WRITE, columns.values(all)),
    tx.commit(),
  ]);
  if (
    updated !== columns.writtenPets(all) ||
    recorded !== columns.changes[0]?.length ||
    claimed !== columns.claims[0]?.length
  ) {
    throw new Error("a group of stock writes did not apply under its rows' locks");
  }
  return outcomes;
}

/**
 * Decides one command on the group's pets as they stand, and when it writes, moves them to what it
 * wrote and adds its columns. Its change ids are the next free ones of the group's, which ascend.
 */
function decideOne(
  command: StockCommand,
  claim: ClaimFound | undefined,
  pets: Map<bigint, PetState>,
  freeIds: bigint[],
  columns: WriteColumns,
): StockWriteResult {
  const seen = command.orders.map((order) => {
    const pet = pets.get(order.petId);
    return pet === undefined ? undefined : { pet, ...entryAt(order.petId, pet, command.atMs) };
  });
  const changeIds = freeIds.slice(0, command.orders.length);
  const decision = decideStockWrite({ command, entries: seen.map((s) => s?.entry), claim, changeIds });
  // Only a command with no order refused writes, and then its entries are its orders, in their order.
  const lapsed: string[] = [];
  decision.written.forEach((written, index) => {
    const read = seen[index];
    if (read === undefined) throw new Error('a written entry must be one the store read');
    const { pet } = read;
    pet.quantity = written.change.after.quantity;
    pet.status = written.change.after.status;
    pet.version = written.version;
    pet.held = written.reserved;
    const gone = new Set(read.lapsed.map((hold) => hold.id));
    pet.holds = pet.holds.filter((hold) => !gone.has(hold.id));
    pet.written = true;
    lapsed.push(...gone);
  });
  freeIds.splice(0, decision.written.length);
  columns.add(command, decision, lapsed);
  return decision.result;
}
