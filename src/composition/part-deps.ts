import type { Logger } from 'pino';
import type { LimiterSubjectRecord } from '../adapters/memory/memory-limiter-snapshot.js';
import type { Clock } from '../application/ports/clock.js';
import type { StoragePorts } from '../application/ports/storage-ports.js';
import type { BanPolicy } from '../domain/ban.js';
import type { Instrumentation } from './instrumentation.js';
import type { Lifecycle } from './lifecycle.js';

/** The stores whose writes commit in groups. */
export type GroupCommitStore = 'sqlite' | 'postgres';

/** An opened store, as the service uses it. */
export interface Store {
  /** Every storage port, before instrumentation (the keys behind their cache, when the store has one). */
  readonly ports: StoragePorts;
  /** True when the store holds no pet, no order and no key: a development start may seed it. */
  isEmpty(): boolean | Promise<boolean>;
  /** Where the in-process limiter keeps its state across a graceful restart: SQLite's file alone. */
  readonly limiterSnapshot?: {
    load(): readonly LimiterSubjectRecord[];
    save(records: readonly LimiterSubjectRecord[]): number;
  };
}

/** What a store is opened with: the lifecycle its part registers with. */
export interface StoreDeps {
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly clock: Clock;
  /**
   * Told the size of each group commit (a metric): the stock updates of an SQLite one, the writes of a
   * PostgreSQL one.
   */
  readonly onGroupCommit: (store: GroupCommitStore, writes: number) => void;
}

/** What a limiter is made with: the lifecycle its part registers with. */
export interface LimiterDeps {
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly banPolicy: BanPolicy;
  readonly instrumentation: Instrumentation;
}
