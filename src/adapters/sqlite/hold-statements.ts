import type { Database, Statement } from 'better-sqlite3';
import type { HoldQuery } from '../../application/ports/inventory-repository.js';
import type { KeyedReservation } from '../../domain/reservation.js';
import { heldAt } from '../sql/hold-expiry.js';
import { KEYED_COLUMNS, keyedReservationOfRow, type reservationOfRow } from './reservation-statements.js';

type ReservationRow = Parameters<typeof reservationOfRow>[0];

/** A page's parameters: the time, the place after which it starts, its size, and the pet or key named. */
interface PageParameters {
  readonly now: number;
  readonly afterMs: number;
  readonly afterId: string;
  readonly limit: number;
  readonly pet: bigint | null;
  readonly key: string | null;
}

/**
 * The holds still held at @now after (@afterMs, @afterId) in the order of expiry then id, which each
 * partial index of held rows keeps: by pet, by key, or by expiry alone. A hold whose time is up has
 * expires_at_ms <= @now, so a first page starts at (@now, '').
 */
const page = (where: string): string =>
  `SELECT ${KEYED_COLUMNS} FROM reservations
   WHERE state = 'held' AND ${where} AND ${heldAt('expires_at_ms', '@now')} AND (expires_at_ms, id) > (@afterMs, @afterId)
   ORDER BY expires_at_ms, id LIMIT @limit`;

/** The reads of the held reservations an operator lists, on the store's reading connection. */
export interface HoldStatements {
  list(query: HoldQuery): KeyedReservation[];
  nextHolder(after: string | undefined): string | undefined;
}

export function holdStatements(db: Database): HoldStatements {
  const prepare = (where: string) => db.prepare<[PageParameters], ReservationRow>(page(where)).raw();
  const byPet = prepare('pet_id = @pet AND (@key IS NULL OR actor = @key)');
  const byKey = prepare('actor = @key AND @pet IS NULL');
  const all = prepare('@pet IS NULL AND @key IS NULL');
  // min() over the partial index by key: one look a key, whatever its holds number.
  const nextHolder = db
    .prepare<[string], string | null>("SELECT min(actor) FROM reservations WHERE state = 'held' AND actor > ?")
    .pluck();
  const statementOf = (query: HoldQuery): Statement<[PageParameters], ReservationRow> =>
    query.petId !== undefined ? byPet : query.keyId !== undefined ? byKey : all;
  return {
    list: (query) =>
      statementOf(query)
        .all({
          now: query.nowMs,
          afterMs: query.after?.expiresAtMs ?? query.nowMs,
          afterId: query.after?.id ?? '',
          limit: query.limit,
          pet: query.petId ?? null,
          key: query.keyId ?? null,
        })
        .map(keyedReservationOfRow),
    nextHolder: (after) => nextHolder.get(after ?? '') ?? undefined,
  };
}
