import type { KeyedReservation, Reservation } from '../../domain/reservation.js';
import { fail, ok } from '../../domain/result.js';
import type { AdminCommand } from './admin-command.js';
import { int64Option, quoted } from './cli-values.js';
import { actorOf } from './key-values.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * A hold as one JSON line. Written by hand, as pet-json.ts is: JSON.stringify cannot write a bigint,
 * and a pet id past 2^53 must keep its digits; the rest are ids of a closed form and numbers.
 */
const holdJson = (r: KeyedReservation): string =>
  `{"id":"${r.id}","petId":${r.petId},"quantity":${r.quantity},"keyId":${JSON.stringify(r.keyId)},` +
  `"state":"${r.state}","createdAt":"${iso(r.createdAtMs)}","expiresAt":"${iso(r.expiresAtMs)}"}`;

const holdLine = (r: KeyedReservation): string =>
  [r.id, r.petId, r.quantity, r.keyId, iso(r.createdAtMs), iso(r.expiresAtMs)].join('\t');

const reservationLine = (r: Reservation): string =>
  [r.id, r.petId, r.quantity, r.state, iso(r.createdAtMs), iso(r.expiresAtMs)].join('\t');

const KEY_ID_MAX = 200;

/** The value of `--key`: a key id as keys list shows it (or whatever actor made the holds). */
function keyIdOption(text: string | undefined) {
  if (text === undefined) return ok(undefined);
  if (text.trim() === '' || text.length > KEY_ID_MAX) return fail(`--key must be 1 to ${KEY_ID_MAX} characters`);
  return ok(text);
}

export const reservationsList: AdminCommand = {
  name: 'reservations list',
  synopsis: 'reservations list [--pet ID] [--key ID] [--json]',
  help: `Usage: petstore reservations list [--pet ID] [--key ID] [--json]

Prints the reservations still held, soonest to lapse first, one tab-separated line each: id, pet id,
quantity, the id of the key that made it, created, expires. With --json, one JSON object per line
instead. It reads a page at a time, so a long list starts at once and stops when its reader does
(petstore reservations list | head).

Options:
  --pet ID     only the holds of this pet
  --key ID     only the holds this key made (key_..., as keys list shows it)`,
  options: ['pet', 'key'],
  flags: ['json'],
  positionals: [],
  async run(line, deps, io) {
    const petText = line.options.get('pet');
    const pet = petText === undefined ? ok(undefined) : int64Option('pet', petText);
    if (!pet.ok) return pet;
    const key = keyIdOption(line.options.get('key'));
    if (!key.ok) return key;
    const format = line.flags.has('json') ? holdJson : holdLine;
    let count = 0;
    for await (const page of deps.listHolds.execute({
      ...(pet.value === undefined ? {} : { petId: pet.value }),
      ...(key.value === undefined ? {} : { keyId: key.value }),
    })) {
      count += page.length;
      await io.write(`${page.map(format).join('\n')}\n`);
    }
    return ok({ stdout: [], note: count === 0 ? 'no reservation is held' : `${count} held` });
  },
};

export const reservationsRelease: AdminCommand = {
  name: 'reservations release',
  synopsis: 'reservations release ID | --key ID [--actor WHO]',
  help: `Usage: petstore reservations release ID [--actor WHO]
       petstore reservations release --key ID [--actor WHO]

Releases a held reservation (res_..., as reservations list shows it), as DELETE /v1/reservations/ID
does: its stock is available again at once. Prints it as it then stands, tab-separated: id, pet id,
quantity, state, created, expires. A reservation released or expired before is printed as it is; a
committed one cannot be released.

With --key instead of an id, releases every reservation that key holds, and prints how many. Revoking
a key does this by itself, and so does the end of a key's life or of its roll's grace (within 10 s).

Options:
  --key ID     the key whose holds to release (key_..., as keys list shows it)
  --actor WHO  who releases, for the logs (default: the operating system's user)`,
  options: ['key', 'actor'],
  positionals: [],
  optionalPositionals: ['ID'],
  async run(line, deps) {
    const actor = actorOf(line);
    if (!actor.ok) return actor;
    const key = keyIdOption(line.options.get('key'));
    if (!key.ok) return key;
    const [id] = line.positionals;
    if ((id === undefined) === (key.value === undefined)) return fail('give a reservation id or --key, one of them');
    if (key.value !== undefined) {
      const released = await deps.releaseHolds.execute({ keyId: key.value, actor: actor.value });
      return ok({ stdout: [String(released)], note: `released ${released} held by ${key.value}` });
    }
    const reservationId = id as string;
    const released = await deps.releaseReservation.execute({ reservationId, actor: actor.value });
    if (!released.ok)
      return fail(
        `${released.error.message}${released.error.code === 'reservation_not_found' ? '' : ` (${quoted(reservationId)})`}`,
      );
    const { reservation } = released.value;
    return ok({ stdout: [reservationLine(reservation)], note: `${reservation.id} is ${reservation.state}` });
  },
};
