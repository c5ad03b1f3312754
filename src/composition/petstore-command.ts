import { isAdminCommand } from '../adapters/cli/admin-cli.js';
import { type Config, ConfigError, readConfig } from './config.js';
import { petstoreHelp } from './petstore-help.js';
import { runAdminCommand, startService } from './service.js';

/**
 * The `petstore` command: `serve` starts the service and stops it on SIGTERM, SIGINT or SIGHUP (then
 * the process exits 0, or 1 when a part did not stop cleanly); any other arguments run one admin command, whose code becomes the process's
 * exit code. The configuration is read from `env` once (docs/operations.md).
 */
export async function runPetstore(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const help = petstoreHelp(argv);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return;
  }
  let config: Config;
  try {
    config = readConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(2);
  }
  if (argv[0] === 'serve') {
    const service = await startService(config);
    // SIGHUP too: a closed terminal or a supervisor's reload must not cut requests in flight. There is
    // no configuration to reload: the environment is read once.
    // The exit follows the stop: nothing is left to hold the process, but an embedded service's caller
    // owns its own exit, and this one is the command's. A part that did not stop cleanly makes it 1.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.once(signal, () => {
        service.stop(signal).then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
            process.exit(1);
          },
        );
      });
    }
    return;
  }
  // Refused before the database is opened, so a typo creates no file.
  if (!isAdminCommand(argv)) {
    const what = argv[0] === undefined ? 'no command given' : `unknown command "${argv[0]}"`;
    process.stderr.write(`error: ${what}; run "serve" to start the service, or "--help" for every command\n`);
    process.exit(1);
  }
  process.exitCode = await runAdminCommand(argv, config);
}
