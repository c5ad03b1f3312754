/**
 * The soak's writes besides PATCH, each sent with an Idempotency-Key and sent again with it after a
 * 5xx, a 409 or no answer, as a client that must not write twice does: adjustments, batches of two
 * pets, and reservations committed. Each acknowledged one must be in the history exactly once.
 */

/** An adjustment or a batch acknowledged with a 200: each of `petIds` has one change with `reason`. */
export interface AcknowledgedKeyed {
  readonly kind: 'adjustment' | 'batch';
  readonly reason: string;
  readonly petIds: readonly number[];
}

/** A reservation the load made (201), and whether its commit was acknowledged (200). */
export interface MadeReservation {
  readonly id: string;
  readonly petId: number;
  committed: boolean;
}

/** Sends a request (see load.ts) and answers its status (0: no answer) and its body's text. */
export type Send = (path: string, init: RequestInit) => Promise<{ status: number; text: string }>;

/** A write answered 5xx, 409 or not at all is sent again with the same Idempotency-Key, at most this often. */
const RETRIES = 5;

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `init` to `path` until it is answered other than 5xx, 409 or nothing; answers the last status and text. */
export async function sendKeyed(
  send: Send,
  path: string,
  init: RequestInit,
): Promise<{ status: number; text: string }> {
  let reply = { status: 0, text: '' };
  for (let attempt = 0; attempt <= RETRIES; attempt += 1) {
    reply = await send(path, init);
    if (reply.status !== 0 && reply.status !== 409 && reply.status < 500) return reply;
    await delay(500);
  }
  return reply;
}

const keyed = (key: string, body?: unknown): RequestInit =>
  body === undefined
    ? { method: 'POST', headers: { 'idempotency-key': key } }
    : {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      };

/** Adjusts `petId` by +1, with a reason that names this write alone. */
export async function adjust(send: Send, n: number, petId: number): Promise<AcknowledgedKeyed | undefined> {
  const reason = `soak-adjustment-${n}`;
  const reply = await sendKeyed(send, `/v1/inventory/${petId}/adjustments`, keyed(reason, { delta: 1, reason }));
  return reply.status === 200 ? { kind: 'adjustment', reason, petIds: [petId] } : undefined;
}

/** Adjusts two pets by +1 in one batch, each change with a reason that names this write alone. */
export async function batch(send: Send, n: number, petIds: readonly number[]): Promise<AcknowledgedKeyed | undefined> {
  const reason = `soak-batch-${n}`;
  const changes = petIds.map((petId) => ({ petId, delta: 1, reason }));
  const reply = await sendKeyed(send, '/v1/inventory/batch', keyed(reason, { changes }));
  return reply.status === 200 ? { kind: 'batch', reason, petIds } : undefined;
}

/** Reserves 1 of `petId` (once: a reserve answered otherwise is left), then commits it with a key. */
export async function reserveAndCommit(send: Send, n: number, petId: number): Promise<MadeReservation | undefined> {
  const made = await send(`/v1/inventory/${petId}/reservations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ quantity: 1 }),
  });
  if (made.status !== 201) return undefined;
  const { id } = JSON.parse(made.text) as { id: string };
  const reservation: MadeReservation = { id, petId, committed: false };
  const reply = await sendKeyed(send, `/v1/reservations/${id}/commit`, keyed(`soak-commit-${n}`));
  reservation.committed = reply.status === 200;
  return reservation;
}
