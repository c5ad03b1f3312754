import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import type { Reservation } from '../../src/domain/reservation.js';
import { type CliHarness, cliHarness, expectRefused, START } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = await cliHarness();
  for (const [id, name] of [
    ['1', 'Rex'],
    ['9223372036854775807', 'Max'],
  ] as const) {
    expect((await cli.run('pets', 'add', '--id', id, '--name', name, '--quantity', '10')).code).toBe(0);
  }
});
afterEach(async () => {
  await cli.close();
});

const MINUTE = 60_000;

/** A hold of `pet` made by `keyId` for `minutes`, as a reserve over HTTP makes it. */
async function hold(pet: bigint, keyId: string, minutes: number): Promise<Reservation> {
  const result = await cli.storage.inventory.writeReservation({
    reservation: { kind: 'reserve', petId: petId(pet), quantity: quantity(2), ttlMs: minutes * MINUTE },
    actor: keyId,
    atMs: cli.clock.nowMs(),
  });
  if (!result.ok) throw new Error(result.error.code);
  return result.value.reservation;
}

const iso = (ms: number) => new Date(ms).toISOString();
// The store reads what is reserved at the system's clock, the CLI at its own: a reservation's stored state tells.
const stateOf = async (r: Reservation) => (await cli.storage.inventory.getReservation(r.id))?.state;

describe('reservations list', () => {
  it('says on stderr that none is held, and prints nothing, when none is', async () => {
    expect(await cli.run('reservations', 'list')).toEqual({ code: 0, stdout: '', stderr: 'no reservation is held\n' });
  });

  it('prints the holds still held, soonest to lapse first, a tab-separated line each, with the key that made it', async () => {
    const late = await hold(1n, 'key_a', 30);
    const soon = await hold(9223372036854775807n, 'key_b', 10);
    await hold(1n, 'key_b', 1);
    cli.clock.advance(MINUTE);
    const result = await cli.run('reservations', 'list');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `${soon.id}\t9223372036854775807\t2\tkey_b\t${iso(START)}\t${iso(START + 10 * MINUTE)}\n` +
        `${late.id}\t1\t2\tkey_a\t${iso(START)}\t${iso(START + 30 * MINUTE)}\n`,
    );
    expect(result.stderr).toBe('2 held\n');
  });

  it('keeps to a pet with --pet and to a key with --key, and prints JSON lines with --json, ids exact', async () => {
    const a = await hold(1n, 'key_a', 30);
    const b = await hold(9223372036854775807n, 'key_b', 10);
    await hold(1n, 'key_b', 20);
    const ids = async (...argv: string[]) =>
      (await cli.run('reservations', 'list', ...argv)).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    expect(await ids('--key', 'key_a')).toEqual([a.id]);
    expect((await ids('--pet', '9223372036854775807')).length).toBe(1);
    expect(await ids('--pet', '1', '--key', 'key_a')).toEqual([a.id]);
    const json = await cli.run('reservations', 'list', '--pet', '9223372036854775807', '--json');
    expect(json.stdout).toBe(
      `{"id":"${b.id}","petId":9223372036854775807,"quantity":2,"keyId":"key_b","state":"held",` +
        `"createdAt":"${iso(START)}","expiresAt":"${iso(START + 10 * MINUTE)}"}\n`,
    );
  });

  it('refuses a pet id that is not an int64 and an empty --key', async () => {
    await expectRefused(cli, ['reservations', 'list', '--pet', '1.5'], '--pet');
    await expectRefused(cli, ['reservations', 'list', '--key', ' '], '--key');
  });
});

describe('reservations release', () => {
  it('releases one reservation by its id and prints it as it then stands; its stock is available again', async () => {
    const r = await hold(1n, 'key_a', 30);
    const result = await cli.run('reservations', 'release', r.id, '--actor', 'ops');
    expect(result).toEqual({
      code: 0,
      stdout: `${r.id}\t1\t2\treleased\t${iso(START)}\t${iso(START + 30 * MINUTE)}\n`,
      stderr: `${r.id} is released\n`,
    });
    expect(await stateOf(r)).toBe('released');
    expect((await cli.run('reservations', 'list')).stdout).toBe('');
  });

  it('releases every hold of a key with --key and prints how many, leaving the other keys’ holds', async () => {
    const first = await hold(1n, 'key_a', 30);
    const second = await hold(9223372036854775807n, 'key_a', 30);
    const kept = await hold(1n, 'key_b', 30);
    expect(await cli.run('reservations', 'release', '--key', 'key_a')).toEqual({
      code: 0,
      stdout: '2\n',
      stderr: 'released 2 held by key_a\n',
    });
    expect([await stateOf(first), await stateOf(second), await stateOf(kept)]).toEqual([
      'released',
      'released',
      'held',
    ]);
    expect((await cli.run('reservations', 'list')).stdout.split('\t')[0]).toBe(kept.id);
  });

  it('refuses an unknown id, a committed reservation, and both or neither of an id and --key', async () => {
    await expectRefused(cli, ['reservations', 'release', `res_${'0'.repeat(32)}`], 'no reservation has id');
    const r = await hold(1n, 'key_a', 30);
    await cli.storage.inventory.writeReservation({
      reservation: { kind: 'commit', reservationId: r.id },
      actor: 'key_a',
      atMs: cli.clock.nowMs(),
    });
    await expectRefused(cli, ['reservations', 'release', r.id], 'is committed');
    await expectRefused(cli, ['reservations', 'release'], 'give a reservation id or --key');
    await expectRefused(cli, ['reservations', 'release', r.id, '--key', 'key_a'], 'give a reservation id or --key');
    await expectRefused(cli, ['reservations', 'release', 'a', 'b'], 'takes [ID]');
  });
});

describe('keys revoke', () => {
  it('releases the holds of the key it revokes', async () => {
    const created = await cli.run('keys', 'create', '--plan', 'pro');
    const keyId = /key_[0-9A-Za-z]+/.exec(created.stderr)?.[0] as string;
    const holds = [await hold(1n, keyId, 30), await hold(9223372036854775807n, keyId, 30)];
    expect((await cli.run('keys', 'revoke', keyId)).code).toBe(0);
    expect((await cli.run('reservations', 'list', '--key', keyId)).stdout).toBe('');
    expect(await Promise.all(holds.map(stateOf))).toEqual(['released', 'released']);
  });
});
