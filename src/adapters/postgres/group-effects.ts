import type { PetId } from '../../domain/pet-id.js';
import type { Reservation } from '../../domain/reservation.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { IdempotencyClaim } from '../../domain/stock-command.js';
import { countWrites, stripeOf } from './inventory-stamp.js';
import { type Prepared, prepared, type SqlValue } from './postgres-database.js';

/** The SQL types an effect's columns are sent as, one array a column, and what each takes. */
interface ValueOfType {
  bigint: bigint | number;
  int: number;
  text: string | null;
}

/** A column of an effect: its SQL type, and its value in a row of the effect (an `R`). */
type Column<R> = { [T in keyof ValueOfType]: readonly [type: T, value: (row: R) => ValueOfType[T]] }[keyof ValueOfType];

/** The SQL an effect's statement is made of: its rows as `e`, and its columns' names. */
interface EffectSql {
  /** `unnest` of the effect's arrays, `AS e(...)` with its columns' names. */
  readonly from: string;
  /** Its columns' names, comma-separated, in their order. */
  readonly names: string;
  /** `column = source.column` for each column but `kept`, for a SET; `source` is `e` unless named. */
  setAllBut(kept: readonly string[], source?: string): string;
}

interface Effect<R> {
  readonly columns: Readonly<Record<string, Column<R>>>;
  readonly write: (sql: EffectSql) => string;
}

const effect = <R>(columns: Record<string, Column<R>>, write: (sql: EffectSql) => string): Effect<R> => ({
  columns,
  write,
});

/**
 * What a group's decisions write, one CTE of its write (groupWrite) an effect: the one place an
 * effect is named. Each column is a name, its SQL type and its value in the effect's row, on one line; the statement,
 * its parameters and their order all follow from this list, so a new effect of a decision (a column
 * here, or an effect whose rows DecidedEffects keeps) is written here and nowhere else. Each statement
 * answers a row per row written.
 */
const EFFECTS = {
  /** A written pet, as the group leaves it, on the condition that its version is the one locked. */
  updated: effect<readonly [PetId, PetState]>(
    {
      id: ['bigint', ([id]) => id],
      locked_version: ['bigint', ([, pet]) => pet.lockedVersion],
      quantity: ['int', ([, pet]) => pet.quantity],
      status: ['text', ([, pet]) => pet.status],
      version: ['bigint', ([, pet]) => pet.version],
      held: ['int', ([, pet]) => pet.held],
    },
    ({ from, setAllBut }) =>
      `UPDATE pets p SET ${setAllBut(['id', 'locked_version'])} FROM ${from}
       WHERE p.id = e.id AND p.version = e.locked_version RETURNING 1`,
  ),
  /** A stored reservation the group moved off held (a commit, a release, a lapse), with its new state. */
  settled: effect<readonly [id: string, state: string]>(
    { id: ['text', ([id]) => id], state: ['text', ([, state]) => state] },
    ({ from }) =>
      `UPDATE reservations r SET state = e.state FROM ${from} WHERE r.id = e.id AND r.state = 'held' RETURNING 1`,
  ),
  /** A new reservation, in the state the group leaves it, with its key. */
  reserved: effect<NewReservation>(
    {
      id: ['text', ({ reservation }) => reservation.id],
      pet_id: ['bigint', ({ reservation }) => reservation.petId],
      quantity: ['int', ({ reservation }) => reservation.quantity],
      state: ['text', ({ reservation }) => reservation.state],
      created_at_ms: ['bigint', ({ reservation }) => reservation.createdAtMs],
      expires_at_ms: ['bigint', ({ reservation }) => reservation.expiresAtMs],
      actor: ['text', ({ actor }) => actor],
    },
    ({ from, names }) => `INSERT INTO reservations (${names}) SELECT * FROM ${from} RETURNING 1`,
  ),
  /** A recorded stock change. */
  recorded: effect<StockChange>(
    {
      id: ['bigint', (change) => change.id],
      pet_id: ['bigint', (change) => change.after.petId],
      before_quantity: ['int', (change) => change.before.quantity],
      before_status: ['text', (change) => change.before.status],
      after_quantity: ['int', (change) => change.after.quantity],
      after_status: ['text', (change) => change.after.status],
      actor: ['text', (change) => change.actor],
      at_ms: ['bigint', (change) => change.atMs],
      kind: ['text', (change) => change.kind],
      reason: ['text', (change) => change.reason],
    },
    ({ from, names }) => `INSERT INTO stock_changes (${names}) SELECT * FROM ${from} RETURNING 1`,
  ),
  /** A claim's outcome, stored over any earlier record of the same claim. */
  claimed: effect<StoredClaim>(
    {
      scope: ['text', ({ claim }) => claim.scope],
      key: ['text', ({ claim }) => claim.key],
      fingerprint: ['text', ({ claim }) => claim.fingerprint],
      outcome: ['text', ({ outcome }) => outcome],
      expires_at_ms: ['bigint', ({ claim }) => claim.expiresAtMs],
    },
    ({ from, names, setAllBut }) =>
      `INSERT INTO idempotency_records (${names}) SELECT * FROM ${from}
       ON CONFLICT (scope, key) DO UPDATE SET ${setAllBut(['scope', 'key'], 'excluded')} RETURNING 1`,
  ),
};

type Effects = typeof EFFECTS;
type EffectName = keyof Effects;

/** Every row a group writes, by effect. */
export type EffectRows = { readonly [N in EffectName]: readonly (Effects[N] extends Effect<infer R> ? R : never)[] };

const EFFECT_NAMES = Object.keys(EFFECTS) as EffectName[];
const columnsOfEffect = (name: EffectName): [string, Column<never>][] => Object.entries(EFFECTS[name].columns);

/** The CTEs of the effects `present`, their parameters numbered in that order, then of each one's columns. */
function effectCtes(present: readonly EffectName[]): { ctes: string[]; parameters: number } {
  let parameters = 0;
  const ctes = present.map((name) => {
    const columns = columnsOfEffect(name);
    const names = columns.map(([column]) => column);
    const arrays = columns.map(([, [type]]) => {
      parameters += 1;
      return `$${parameters}::${type}[]`;
    });
    const sql = EFFECTS[name].write({
      from: `unnest(${arrays.join(', ')}) AS e(${names.join(', ')})`,
      names: names.join(', '),
      setAllBut: (kept, source = 'e') => {
        const unknown = kept.filter((column) => !names.includes(column));
        if (unknown.length > 0) throw new Error(`the effect ${name} has no column ${unknown.join(', ')}`);
        return names
          .filter((column) => !kept.includes(column))
          .map((column) => `${column} = ${source}.${column}`)
          .join(', ');
      },
    });
    return `${name} AS (${sql})`;
  });
  return { ctes, parameters };
}

/**
 * The statement that applies the effects `present` (in EFFECTS' order), under the locks the reads
 * took: each one's rows, one array a column, then the stripe of the stamp, which counts the pets
 * written. Answers how many rows each effect of EFFECTS wrote, in that order (0 for one not present):
 * the caller checks them, and throws (rolling everything back) on a mismatch, which would be a bug.
 */
function writeStatement(present: readonly EffectName[]): Prepared {
  const { ctes, parameters } = effectCtes(present);
  const counted = present.includes('updated')
    ? [
        `counted AS (${countWrites('(SELECT count(*) FROM updated)', `$${parameters + 1}`)} AND EXISTS (SELECT FROM updated))`,
      ]
    : [];
  const counts = EFFECT_NAMES.map((name) => (present.includes(name) ? `(SELECT count(*) FROM ${name})::int` : '0'));
  const key = EFFECT_NAMES.map((name) => (present.includes(name) ? '1' : '0')).join('');
  return prepared(`group_write_${key}`, `WITH ${[...ctes, ...counted].join(',\n')}\nSELECT ${counts.join(', ')}`);
}

/** The statements made so far, by the effects they apply: a few kinds of group (most write pets and changes alone). */
const writeStatements = new Map<string, Prepared>();

/** The effects a group wrote rows of, in EFFECTS' order. */
const presentIn = (rows: EffectRows): EffectName[] => EFFECT_NAMES.filter((name) => rows[name].length > 0);

/** The rows each effect writes, in EFFECTS' order. */
export const effectCounts = (rows: EffectRows): number[] => EFFECT_NAMES.map((name) => rows[name].length);

/**
 * The statement that applies a group's rows and its parameters: only the effects it has rows of, so
 * that a group of stock writes, the most common, neither opens nor locks the reservations and the
 * claims (their tables and indexes), nor plans their empty statements. Its parameters: each present
 * effect's columns as arrays, then the stripe of the first written pet when it wrote any.
 */
export function groupWrite(rows: EffectRows): { readonly statement: Prepared; readonly values: SqlValue[] } {
  const present = presentIn(rows);
  const key = present.join(' ');
  let statement = writeStatements.get(key);
  if (statement === undefined) {
    statement = writeStatement(present);
    writeStatements.set(key, statement);
  }
  const arrays = present.flatMap((name) => {
    const written = rows[name] as readonly never[];
    return columnsOfEffect(name).map(([, [, value]]): SqlValue[] => written.map((row) => value(row)));
  });
  const [first] = rows.updated;
  return { statement, values: first === undefined ? arrays : [...arrays, stripeOf(first[0])] };
}

/** A new reservation of the group, with the key that made it. */
interface NewReservation {
  readonly reservation: Reservation;
  readonly actor: string;
}

/** A claim to store, with the outcome its write answered. */
interface StoredClaim {
  readonly claim: IdempotencyClaim;
  readonly outcome: string;
}

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

/** The effects of a group's decisions, kept as they are taken, as the rows of EFFECTS. */
export class DecidedEffects {
  /** Stored reservations the group moved off held, with their new state. */
  private readonly moved = new Map<string, string>();
  /** New reservations, by id: one may be settled later in the group. */
  private readonly created = new Map<string, NewReservation>();
  private readonly changes: StockChange[] = [];
  private readonly claims: StoredClaim[] = [];

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
    this.changes.push(change);
  }

  claim(claim: IdempotencyClaim, outcome: string): void {
    this.claims.push({ claim, outcome });
  }

  /** Every row the group writes, with the written pets' last states. */
  rows(pets: readonly [PetId, PetState][]): EffectRows {
    return {
      updated: pets.filter(([, pet]) => pet.written),
      settled: [...this.moved],
      reserved: [...this.created.values()],
      recorded: this.changes,
      claimed: this.claims,
    };
  }
}
