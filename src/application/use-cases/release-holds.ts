import { keyStanding } from '../../domain/api-key.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { Clock } from '../ports/clock.js';
import type { InventoryRepository } from '../ports/inventory-repository.js';
import type { StockCommandRunner } from '../stock-command-runner.js';

/** How many of a key's holds are released at once: small, so that other writes interleave with them. */
export const RELEASE_BATCH = 100;

/**
 * Releases every reservation a key holds, each by the one write a DELETE of it makes (so each is
 * decided by the core and gives its stock back at once), a batch at a time until the key holds none.
 * Resolves to how many it released.
 */
export class ReleaseHolds {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly writes: StockCommandRunner,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly keyId: string; readonly actor: string }): Promise<number> {
    let released = 0;
    for (;;) {
      const holds = await this.inventory.listHolds({
        keyId: input.keyId,
        nowMs: this.clock.nowMs(),
        limit: RELEASE_BATCH,
      });
      if (holds.length === 0) return released;
      const results = await Promise.all(
        holds.map((hold) =>
          this.writes.runReservation({ reservation: { kind: 'release', reservationId: hold.id }, actor: input.actor }),
        ),
      );
      // A hold committed or released meanwhile is held no more either way: the next page goes on.
      released += results.filter((result) => result.ok && result.value.reservation.state === 'released').length;
    }
  }
}

/**
 * Releases the holds of every key that is no longer in use: revoked, expired, or rolled and past its
 * grace. Walks the keys that hold any, one look at each: a key in use, or one the key store does not
 * know (an embedder's own actor), keeps its holds. Resolves to how many it released.
 */
export class ReleaseEndedKeysHolds {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly keys: ApiKeyStore,
    private readonly release: ReleaseHolds,
    private readonly clock: Clock,
    private readonly actor: string,
  ) {}

  async execute(): Promise<number> {
    let released = 0;
    for (let keyId = await this.inventory.nextHolder(undefined); keyId !== undefined; ) {
      const key = await this.keys.findById(keyId);
      if (key !== undefined && keyStanding(key, this.clock.nowMs()) !== 'active') {
        released += await this.release.execute({ keyId, actor: this.actor });
      }
      keyId = await this.inventory.nextHolder(keyId);
    }
    return released;
  }
}
