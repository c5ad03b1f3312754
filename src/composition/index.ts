/**
 * The whole service as a function: `petstore-inventory/server`. {@link startService} runs it as
 * `npm start` (and `npx petstore serve`) does, configured by {@link readConfig} from the environment
 * (docs/operations.md); {@link runAdminCommand} runs one admin command; {@link runPetstore} is the
 * `petstore` command itself. Needs the server's own packages ({@link SERVER_PEERS}): importing it
 * without them throws a MissingPeerError with the one npm install line that adds them. A start also
 * needs the drivers its configuration names ({@link servicePeersOf}), checked as it starts.
 *
 * @packageDocumentation
 */
import { requirePeers } from '../adapters/shared/peer-packages.js';
import { SERVICE_PEERS } from './service-peers.js';

export type { Config } from './config.js';
export type { RunningService } from './service.js';

/**
 * The packages every start of the server imports. The store's driver (better-sqlite3, or pg with
 * DATABASE_URL), ioredis (REDIS_URL) and OpenTelemetry (OTEL_EXPORTER_OTLP_ENDPOINT) are checked when
 * the configuration asks for them: see servicePeersOf.
 */
export const SERVER_PEERS = SERVICE_PEERS;
export { servicePeersOf } from './service-peers.js';

await requirePeers('petstore-inventory/server', SERVER_PEERS);
const [config, service, command] = await Promise.all([
  import('./config.js'),
  import('./service.js'),
  import('./petstore-command.js'),
]);

/** Reads the service's configuration from the environment; throws a ConfigError naming a bad setting. */
export const readConfig = config.readConfig;
/** A setting of the environment that cannot be used, with the reason. */
export const ConfigError = config.ConfigError;
export type ConfigError = import('./config.js').ConfigError;
/** Starts the service configured by `config`; resolves once it listens, with its URL and `stop`. */
export const startService = service.startService;
/** Runs one admin command over the configured store; resolves to its exit code. */
export const runAdminCommand = service.runAdminCommand;
/** The `petstore` command: `serve`, or one admin command; reads its configuration from `env`. */
export const runPetstore = command.runPetstore;
