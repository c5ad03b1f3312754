import type { PetId } from '../../domain/pet-id.js';
import type { Reservation } from '../../domain/reservation.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { IdempotencyClaim } from '../../domain/stock-command.js';
import { countWrites, stripeOf } from './inventory-stamp.js';
import { prepared, type SqlValue } from './postgres-database.js';

/** The SQL types an effect's columns are sent as, one array a column, and what each takes. */
interface ValueOfType {
  bigint: bigint | number;
  int: number;
  text: string | null;
}

type EffectColumns = Readonly<Record<string, keyof ValueOfType>>;

/** The SQL an effect's statement is made of: its rows as `e`, and its columns' names. */
interface EffectSql<C extends EffectColumns> {
  /** `unnest` of the effect's arrays, `AS e(...)` with its columns' names. */
  readonly from: string;
  /** Its columns' names, comma-separated, in their order. */
  readonly names: string;
  /** `column = source.column` for each column but `kept`, for a SET; `source` is `e` unless named. */
  setAllBut(kept: readonly (keyof C & string)[], source?: string): string;
}

const effect = <const C extends EffectColumns>(columns: C, write: (sql: EffectSql<C>) => string) => ({
  columns,
  write,
});

/**
 * What a group's decisions write, one CTE an effect of GROUP_WRITE, each with its rows' columns by name
 * and SQL type: the one place an effect is named. Its statement, its parameters and its row's type
 * (EffectRow) all follow from this list, so a new effect (or a new column of one) is a field here and
 * the value given where the decision is recorded (DecidedEffects). Each answers a row per row written.
 */
const EFFECTS = {
  /** A written pet, as the group leaves it, on the condition that its version is the one locked. */
  updated: effect(
    { id: 'bigint', locked_version: 'bigint', quantity: 'int', status: 'text', version: 'bigint', held: 'int' },
    ({ from, setAllBut }) =>
      `UPDATE pets p SET ${setAllBut(['id', 'locked_version'])} FROM ${from}
       WHERE p.id = e.id AND p.version = e.locked_version RETURNING 1`,
  ),
  /** A stored reservation the group moved off held (a commit, a release, a lapse), with its new state. */
  settled: effect(
    { id: 'text', state: 'text' },
    ({ from }) =>
      `UPDATE reservations r SET state = e.state FROM ${from} WHERE r.id = e.id AND r.state = 'held' RETURNING 1`,
  ),
  /** A new reservation, in the state the group leaves it, with its key. */
  reserved: effect(
    {
      id: 'text',
      pet_id: 'bigint',
      quantity: 'int',
      state: 'text',
      created_at_ms: 'bigint',
      expires_at_ms: 'bigint',
      actor: 'text',
    },
    ({ from, names }) => `INSERT INTO reservations (${names}) SELECT * FROM ${from} RETURNING 1`,
  ),
  /** A recorded stock change. */
  recorded: effect(
    {
      id: 'bigint',
      pet_id: 'bigint',
      before_quantity: 'int',
      before_status: 'text',
      after_quantity: 'int',
      after_status: 'text',
      actor: 'text',
      at_ms: 'bigint',
      kind: 'text',
      reason: 'text',
    },
    ({ from, names }) => `INSERT INTO stock_changes (${names}) SELECT * FROM ${from} RETURNING 1`,
  ),
  /** A claim's outcome, stored over any earlier record of the same claim. */
  claimed: effect(
    { scope: 'text', key: 'text', fingerprint: 'text', outcome: 'text', expires_at_ms: 'bigint' },
    ({ from, names, setAllBut }) =>
      `INSERT INTO idempotency_records (${names}) SELECT * FROM ${from}
       ON CONFLICT (scope, key) DO UPDATE SET ${setAllBut(['scope', 'key'], 'excluded')} RETURNING 1`,
  ),
};

type Effects = typeof EFFECTS;
type EffectName = keyof Effects;

/** A row of an effect, by column name. */
export type EffectRow<N extends EffectName> = ValuesOf<Effects[N]['columns']>;

type ValuesOf<C extends EffectColumns> = { readonly [K in keyof C]: ValueOfType[C[K]] };

/** Every row a group writes, by effect. */
export type EffectRows = { readonly [N in EffectName]: readonly EffectRow<N>[] };

const EFFECT_NAMES = Object.keys(EFFECTS) as EffectName[];
const columnsOfEffect = (name: EffectName): [string, keyof ValueOfType][] => Object.entries(EFFECTS[name].columns);

/** Each effect's CTE, its parameters numbered in the order of EFFECT_NAMES, then of its columns. */
function effectCtes(): { ctes: string[]; parameters: number } {
  let parameters = 0;
  const ctes = EFFECT_NAMES.map((name) => {
    const columns = columnsOfEffect(name);
    const names = columns.map(([column]) => column);
    const arrays = columns.map(([, type]) => {
      parameters += 1;
      return `$${parameters}::${type}[]`;
    });
    const write = EFFECTS[name].write as (sql: EffectSql<EffectColumns>) => string;
    const sql = write({
      from: `unnest(${arrays.join(', ')}) AS e(${names.join(', ')})`,
      names: names.join(', '),
      setAllBut: (kept, source = 'e') =>
        names
          .filter((column) => !kept.includes(column))
          .map((column) => `${column} = ${source}.${column}`)
          .join(', '),
    });
    return `${name} AS (${sql})`;
  });
  return { ctes, parameters };
}

const { ctes, parameters } = effectCtes();

/**
 * Applies every decision of the group, under the locks the reads took: each effect's rows, one array a
 * column, in EFFECTS' order (groupWriteValues), then the stripe of the stamp, which counts the pets written.
 * Answers how many rows each effect wrote, in that order: the caller checks them, and throws (rolling
 * everything back) on a mismatch, which would be a bug.
 */
export const GROUP_WRITE = prepared(
  'group_write',
  `WITH ${ctes.join(',\n')},
counted AS (${countWrites('(SELECT count(*) FROM updated)', `$${parameters + 1}`)} AND EXISTS (SELECT FROM updated))
SELECT ${EFFECT_NAMES.map((name) => `(SELECT count(*) FROM ${name})::int`).join(', ')}`,
);

/** The rows each effect writes, in GROUP_WRITE's order. */
export const effectCounts = (rows: EffectRows): number[] => EFFECT_NAMES.map((name) => rows[name].length);

/** GROUP_WRITE's parameters: each effect's columns as arrays, then the stripe of the first written pet. */
export function groupWriteValues(rows: EffectRows): SqlValue[] {
  const arrays = EFFECT_NAMES.flatMap((name) => {
    const written = rows[name] as readonly Readonly<Record<string, SqlValue>>[];
    return columnsOfEffect(name).map(([column]) => written.map((row) => row[column] ?? null));
  });
  const [first] = rows.updated;
  return [...arrays, first === undefined ? 0 : stripeOf(BigInt(first.id) as PetId)];
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

/** The effects of a group's decisions, recorded as they are taken, as rows of EFFECTS. */
export class DecidedEffects {
  /** Stored reservations the group moved off held, with their new state. */
  private readonly moved = new Map<string, string>();
  /** New reservations, by id: one may be settled later in the group. */
  private readonly created = new Map<string, EffectRow<'reserved'>>();
  private readonly changes: EffectRow<'recorded'>[] = [];
  private readonly claims: EffectRow<'claimed'>[] = [];

  /** A new reservation of `actor`, stored with the group. */
  create(reservation: Reservation, actor: string): void {
    const { id, petId, quantity, state, createdAtMs, expiresAtMs } = reservation;
    this.created.set(id, {
      id,
      pet_id: petId,
      quantity,
      state,
      created_at_ms: createdAtMs,
      expires_at_ms: expiresAtMs,
      actor,
    });
  }

  /** Moves a reservation (stored, or new in the group) off held. */
  settle(id: string, state: Reservation['state']): void {
    const created = this.created.get(id);
    if (created === undefined) this.moved.set(id, state);
    else this.created.set(id, { ...created, state });
  }

  record(change: StockChange): void {
    const { before, after } = change;
    this.changes.push({
      id: change.id,
      pet_id: after.petId,
      before_quantity: before.quantity,
      before_status: before.status,
      after_quantity: after.quantity,
      after_status: after.status,
      actor: change.actor,
      at_ms: change.atMs,
      kind: change.kind,
      reason: change.reason,
    });
  }

  claim(claim: IdempotencyClaim, outcome: string): void {
    const { scope, key, fingerprint, expiresAtMs } = claim;
    this.claims.push({ scope, key, fingerprint, outcome, expires_at_ms: expiresAtMs });
  }

  /** Every row the group writes, with the written pets' last states. */
  rows(pets: readonly [PetId, PetState][]): EffectRows {
    return {
      updated: pets
        .filter(([, pet]) => pet.written)
        .map(([id, pet]) => ({
          id,
          locked_version: pet.lockedVersion,
          quantity: pet.quantity,
          status: pet.status,
          version: pet.version,
          held: pet.held,
        })),
      settled: [...this.moved].map(([id, state]) => ({ id, state })),
      reserved: [...this.created.values()],
      recorded: this.changes,
      claimed: this.claims,
    };
  }
}
