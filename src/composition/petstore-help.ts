import { adminHelp } from '../adapters/cli/admin-cli.js';
import { SETTINGS } from './settings.js';

const HELP_WORDS: ReadonlySet<string> = new Set(['--help', '-h', 'help']);

/** The widest variable name, so that the defaults line up. */
const NAME_WIDTH = Math.max(...Object.keys(SETTINGS).map((name) => name.length));

/** `petstore serve --help`: what serve starts, and every variable it reads with its default. */
export const SERVE_HELP = `Usage: petstore serve

Starts the HTTP service: the API under /v1, its reference page at /docs, the stock console at
/console, /livez, /readyz and /metrics. It runs until SIGTERM, SIGINT or SIGHUP, then drains and stops.
In development (the default) an empty store is seeded with demo pets and a key is printed.

Settings, read once from the environment (an empty variable counts as unset):
${Object.entries(SETTINGS)
  .map(([name, { default: value, meaning }]) => `  ${name.padEnd(NAME_WIDTH)}  ${value ?? '(unset)'}\n      ${meaning}`)
  .join('\n')}

Needs koa, @koa/router, koa-bodyparser, inversify, valibot, pino, prom-client, lossless-json and
standardwebhooks, with better-sqlite3 for SQLite, pg with DATABASE_URL, ioredis with REDIS_URL or
REDIS_CLUSTER_NODES, and the OpenTelemetry packages with OTEL_EXPORTER_OTLP_ENDPOINT: a missing one is
named with the npm install line that adds it.`;

/**
 * The help that the words after `petstore` ask for (`--help`, `serve --help`, `keys create --help`),
 * or `undefined` when they ask for something to be run. It loads no package and reads nothing.
 */
export function petstoreHelp(argv: readonly string[]): string | undefined {
  if (argv[0] === 'serve') return argv.slice(1).some((word) => HELP_WORDS.has(word)) ? SERVE_HELP : undefined;
  return adminHelp(argv);
}
