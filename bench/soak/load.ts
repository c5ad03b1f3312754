import { setTimeout as delay } from 'node:timers/promises';
import { type AcknowledgedKeyed, adjust, batch, type MadeReservation, reserveAndCommit } from './keyed-writes.js';

/** Longer than any answer may take through nginx (its 5 s upstream bound, the 2 s statement timeout). */
const ANSWER_WITHIN_MS = 15_000;
/** Quantities written are this plus the write's number, so each acknowledged write is found by its value. */
export const WRITE_BASE = 1_000;
/** A write answered 5xx, 409 or not at all is sent again with the same Idempotency-Key, at most this often. */
const RETRIES = 5;

/** One request of the load: what it was, when it started and ended (ms since the soak began), its status (0: no answer). */
export interface Answered {
  readonly kind: 'item' | 'list' | 'patch' | 'adjustment' | 'batch' | 'reserve' | 'commit';
  readonly startMs: number;
  readonly endMs: number;
  readonly status: number;
}

/** A write acknowledged with a 200: pet `petId` was set to WRITE_BASE + n. */
export interface Acknowledged {
  readonly n: number;
  readonly petId: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly key: string;
  readonly petIds: readonly number[];
  readonly clients: number;
  /** The most requests a second all clients together send. */
  readonly ratePerSecond: number;
  readonly startedAt: number;
  readonly until: () => boolean;
}

export interface LoadResult {
  readonly answers: readonly Answered[];
  readonly acknowledged: readonly Acknowledged[];
  /** Adjustments and batches acknowledged. */
  readonly keyed: readonly AcknowledgedKeyed[];
  /** Every reservation made, with whether its commit was acknowledged. */
  readonly reservations: readonly MadeReservation[];
}

interface Reply {
  readonly status: number;
  readonly etag: string | null;
  readonly text: string;
}

/**
 * A mixed load through nginx: GET of one pet (40 %), GET of the list (10 %), PATCH of one pet with
 * If-Match and an Idempotency-Key (25 %), and with an Idempotency-Key: an adjustment (10 %), a batch of
 * two pets (10 %), a reservation then its commit (5 %). Each client paces itself to its share of the rate.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const answers: Answered[] = [];
  const acknowledged: Acknowledged[] = [];
  const keyed: AcknowledgedKeyed[] = [];
  const reservations: MadeReservation[] = [];
  const etags = new Map<number, string>();
  const auth = { authorization: `Bearer ${options.key}` };
  const now = (): number => performance.now() - options.startedAt;
  let writes = 0;

  const send = async (kind: Answered['kind'], path: string, init: RequestInit = {}): Promise<Reply> => {
    const startMs = now();
    const reply = await fetch(`${options.url}${path}`, {
      ...init,
      headers: { ...auth, ...(init.headers as Record<string, string> | undefined) },
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    }).then(
      async (res) => {
        return { status: res.status, etag: res.headers.get('etag'), text: await res.text() };
      },
      () => ({ status: 0, etag: null, text: '' }),
    );
    answers.push({ kind, startMs, endMs: now(), status: reply.status });
    return reply;
  };

  const write = async (petId: number): Promise<void> => {
    const n = writes;
    writes += 1;
    const ifMatch = etags.get(petId) ?? '*';
    const init: RequestInit = {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'if-match': ifMatch, 'idempotency-key': `soak-${n}` },
      body: JSON.stringify({ quantity: WRITE_BASE + n }),
    };
    for (let attempt = 0; attempt <= RETRIES; attempt += 1) {
      const reply = await send('patch', `/v1/inventory/${petId}`, init);
      if (reply.etag !== null) etags.set(petId, reply.etag);
      if (reply.status === 200) acknowledged.push({ n, petId });
      // A 412 says the tag was stale: the next write of this pet uses the one it carried.
      if (reply.status !== 0 && reply.status !== 409 && reply.status < 500) return;
      await delay(500);
    }
  };

  const kindOf = (path: string): Answered['kind'] =>
    path.endsWith('/adjustments')
      ? 'adjustment'
      : path.endsWith('/batch')
        ? 'batch'
        : path.endsWith('/commit')
          ? 'commit'
          : 'reserve';
  const sendWrite = (path: string, init: RequestInit) => send(kindOf(path), path, init);
  const other = (petId: number): number => {
    const others = options.petIds.filter((id) => id !== petId);
    return others[Math.floor(Math.random() * others.length)] ?? petId;
  };
  const keyedWrite = async (roll: number, petId: number): Promise<void> => {
    const n = writes;
    writes += 1;
    if (roll < 0.85) {
      const done = await adjust(sendWrite, n, petId);
      if (done !== undefined) keyed.push(done);
    } else if (roll < 0.95) {
      const done = await batch(sendWrite, n, [petId, other(petId)]);
      if (done !== undefined) keyed.push(done);
    } else {
      const made = await reserveAndCommit(sendWrite, n, petId);
      if (made !== undefined) reservations.push(made);
    }
  };

  const client = async (): Promise<void> => {
    const gapMs = (1000 * options.clients) / options.ratePerSecond;
    while (!options.until()) {
      const began = performance.now();
      const petId = options.petIds[Math.floor(Math.random() * options.petIds.length)] as number;
      const roll = Math.random();
      if (roll < 0.4) {
        const reply = await send('item', `/v1/inventory/${petId}`);
        if (reply.status === 200 && reply.etag !== null) etags.set(petId, reply.etag);
      } else if (roll < 0.5) await send('list', '/v1/inventory');
      else if (roll < 0.75) await write(petId);
      else await keyedWrite(roll, petId);
      const rest = gapMs - (performance.now() - began);
      if (rest > 0) await delay(rest);
    }
  };

  await Promise.all(Array.from({ length: options.clients }, client));
  return { answers, acknowledged, keyed, reservations };
}
