import type { AddressMemorySettings } from './address-memory.js';
import type { CliSettings } from './cli.js';
import type { ConsoleSettings } from './console-load.js';
import type { GarbageSettings } from './garbage.js';
import type { LoadSettings } from './http.js';
import type { LibrarySettings } from './library.js';
import type { LimiterSettings } from './limiter.js';
import type { FiltersSettings } from './list-filters.js';
import type { FloorsSettings } from './patch-floor.js';
import type { PostgresSettings } from './postgres.js';
import type { ProfileSettings } from './profile.js';
import type { ScaleSettings } from './scale.js';
import type { SqliteSettings } from './sqlite.js';

export const SUITES = [
  'http',
  'limiter',
  'scale',
  'profile',
  'sqlite',
  'metrics',
  'cli',
  'postgres',
  'console',
  'library',
  'filters',
  'floors',
  'addresses',
  'garbage',
] as const;
export type Suite = (typeof SUITES)[number];

/** How long and how often each suite measures. */
export interface BenchSettings {
  readonly http: LoadSettings;
  readonly limiter: LimiterSettings;
  readonly scale: ScaleSettings;
  readonly profile: ProfileSettings;
  readonly sqlite: SqliteSettings;
  readonly metrics: LoadSettings;
  readonly cli: CliSettings;
  /** The HTTP load over SQLite and over PostgreSQL; absent from the records of runs before it existed. */
  readonly postgres?: PostgresSettings;
  /** The stock console's first load in Chromium; absent from the records of runs before it existed. */
  readonly console?: ConsoleSettings;
  /** The package's import, key hash and tarball; absent from the records of runs before it existed. */
  readonly library?: LibrarySettings;
  /** The list filters at scale; absent from the records of runs before it existed. */
  readonly filters?: FiltersSettings;
  /** The floors of a PATCH in process; absent from the records of runs before it existed. */
  readonly floors?: FloorsSettings;
  /** The in-process limiter's client addresses in memory; absent from the records of runs before it existed. */
  readonly addresses?: AddressMemorySettings;
  /** What a request allocates, thread by thread; absent from the records of runs before it existed. */
  readonly garbage?: GarbageSettings;
}

/**
 * `npm run bench`: what the issue asks for; about ten minutes on two cores, and 4.5 more for library,
 * filters and floors (1.6, 0.7 and 2.3 minutes alone on 2026-11-26), and about 1.3 for garbage (five
 * loads of 3 s warm-up and 3 rounds of 3 s, by the settings; not yet timed in a full run).
 */
export const FULL: BenchSettings = {
  http: { seconds: 10, rounds: 3, warmupSeconds: 2 },
  limiter: { seconds: 2, rounds: 5, warmupSeconds: 0.5 },
  scale: {
    sizes: [10_000, 100_000, 1_000_000],
    repetitions: 5,
    patch: { seconds: 10, rounds: 3, warmupSeconds: 2 },
  },
  profile: { seconds: 10, targets: ['baseline', 'in-process', 'Redis'] },
  sqlite: { importPets: 1_000_000, importRounds: 3, updatePets: 10_000, updateSeconds: 3, updateRounds: 3 },
  metrics: { seconds: 10, rounds: 5, warmupSeconds: 2 },
  cli: { pets: 1_000_000, rounds: 3 },
  postgres: { seconds: 10, rounds: 3, warmupSeconds: 2, listPets: 1_000_000 },
  console: { sizes: [100, 1_000_000], visits: 15 },
  library: { runs: 15, calls: 200_000 },
  filters: { pets: 1_000_000, rounds: 10, stores: ['SQLite', 'PostgreSQL'] },
  floors: { seconds: 3, rounds: 9, warmupSeconds: 3 },
  addresses: { addresses: [100_000, 1_000_000], fullAddresses: 3_000 },
  garbage: { seconds: 3, rounds: 3, warmupSeconds: 3 },
};

/** `npm run bench -- --quick`: every suite once, short and small; about a minute. */
export const QUICK: BenchSettings = {
  http: { seconds: 1.5, rounds: 1, warmupSeconds: 0.5 },
  limiter: { seconds: 0.5, rounds: 1, warmupSeconds: 0.2 },
  scale: { sizes: [10_000, 100_000], repetitions: 2, patch: { seconds: 1.5, rounds: 1, warmupSeconds: 0.5 } },
  profile: { seconds: 2, targets: ['in-process'] },
  sqlite: { importPets: 100_000, importRounds: 1, updatePets: 10_000, updateSeconds: 1, updateRounds: 1 },
  metrics: { seconds: 1.5, rounds: 2, warmupSeconds: 0.5 },
  cli: { pets: 100_000, rounds: 1 },
  postgres: { seconds: 1.5, rounds: 1, warmupSeconds: 0.5, listPets: 100_000 },
  console: { sizes: [100, 100_000], visits: 3 },
  library: { runs: 3, calls: 20_000 },
  filters: { pets: 100_000, rounds: 3, stores: ['SQLite', 'PostgreSQL'] },
  floors: { seconds: 1.5, rounds: 1, warmupSeconds: 0.5 },
  addresses: { addresses: [100_000], fullAddresses: 300 },
  garbage: { seconds: 1.5, rounds: 1, warmupSeconds: 1.5 },
};
