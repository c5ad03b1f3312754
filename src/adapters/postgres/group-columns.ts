import type { PetId } from '../../domain/pet-id.js';
import type { Reservation } from '../../domain/reservation.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { IdempotencyClaim } from '../../domain/stock-command.js';
import { stripeOf } from './inventory-stamp.js';
import type { SqlValue } from './postgres-database.js';

/**
 * A pet as the group leaves it so far: as locked and read, then as each written command left it, so
 * that the next command of the same pet is decided on what the one before it wrote.
 */
export interface PetState {
  quantity: number;
  status: string;
  /** The version stored as locked, which the group's one update of the row is conditional on. */
  readonly lockedVersion: bigint;
  /** The version the row has after the group's writes so far. */
  version: number;
  held: number;
  /** Its reservations held as far as the group knows whose time may be up by its latest command. */
  holds: Reservation[];
  written: boolean;
}

/** Adds a row's values to their columns. */
function appendRow(columns: SqlValue[][], row: readonly SqlValue[]): void {
  for (const [index, value] of row.entries()) columns[index]?.push(value);
}

const columnsOf = (count: number): SqlValue[][] => Array.from({ length: count }, () => []);

/** Each column of the group's write (see GROUP_WRITE), filled as the decisions are taken. */
export class WriteColumns {
  /** Stored reservations the group moved off held, with their new state. */
  private readonly moved = new Map<string, string>();
  /** New reservations, with the state the group leaves them in. */
  private readonly created = new Map<string, { reservation: Reservation; actor: string }>();
  readonly changes = columnsOf(10);
  readonly claims = columnsOf(5);

  /** A new reservation of `actor`, stored with the group. */
  create(reservation: Reservation, actor: string): void {
    this.created.set(reservation.id, { reservation, actor });
  }

  /** Moves a reservation (stored, or new in the group) off held. */
  settle(id: string, state: Reservation['state']): void {
    const created = this.created.get(id);
    if (created === undefined) this.moved.set(id, state);
    else this.created.set(id, { ...created, reservation: { ...created.reservation, state } });
  }

  record(change: StockChange): void {
    const { before, after } = change;
    const row: SqlValue[] = [change.id, after.petId, before.quantity, before.status, after.quantity, after.status];
    appendRow(this.changes, [...row, change.actor, change.atMs, change.kind, change.reason]);
  }

  claim(claim: IdempotencyClaim, outcome: string): void {
    appendRow(this.claims, [claim.scope, claim.key, claim.fingerprint, outcome, claim.expiresAtMs]);
  }

  /** The rows each part of the statement writes, as it answers them. */
  expected(pets: readonly [PetId, PetState][]): number[] {
    const written = pets.filter(([, pet]) => pet.written).length;
    return [written, this.moved.size, this.created.size, this.changes[0]?.length ?? 0, this.claims[0]?.length ?? 0];
  }

  /** The statement's parameters, with the pets' last states. */
  values(pets: readonly [PetId, PetState][]): SqlValue[] {
    const written = pets.filter(([, pet]) => pet.written);
    const [first] = written;
    const created = [...this.created.values()];
    return [
      written.map(([id]) => id),
      written.map(([, pet]) => pet.lockedVersion),
      written.map(([, pet]) => pet.version),
      written.map(([, pet]) => pet.quantity),
      written.map(([, pet]) => pet.status),
      written.map(([, pet]) => pet.held),
      [...this.moved.keys()],
      [...this.moved.values()],
      created.map(({ reservation }) => reservation.id),
      created.map(({ reservation }) => reservation.petId),
      created.map(({ reservation }) => reservation.quantity),
      created.map(({ reservation }) => reservation.state),
      created.map(({ reservation }) => reservation.createdAtMs),
      created.map(({ reservation }) => reservation.expiresAtMs),
      created.map(({ actor }) => actor),
      ...this.changes,
      ...this.claims,
      first === undefined ? 0 : stripeOf(first[0]),
    ];
  }
}
