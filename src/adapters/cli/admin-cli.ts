import { once } from 'node:events';
import type { AdminCliDeps, AdminCommand } from './admin-command.js';
import { parseCommandLine } from './command-line.js';
import { keysCreate, keysList, keysRevoke } from './key-commands.js';
import { keysAudit, keysExpire, keysRoll, keysShow } from './key-lifecycle-commands.js';
import { Progress } from './progress.js';
import { reservationsList, reservationsRelease } from './reservation-commands.js';
import { ordersImport, petsAdd, petsExport, petsImport } from './store-commands.js';
import { webhooksAdd, webhooksDeliveries, webhooksEnable, webhooksList, webhooksRemove } from './webhook-commands.js';

export type { AdminCliDeps } from './admin-command.js';

/** Where the CLI writes: results to `stdout`, messages for a person to `stderr`. */
export interface CliIo {
  /** May answer a promise, resolved once more may be written: a streamed export waits for it. */
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
  /** True when stderr is a terminal: long commands then show their progress on it. */
  readonly stderrIsTerminal?: boolean;
}

/** Whether the reader of stdout has gone (EPIPE): what is left of the result is dropped. */
let stdoutClosed = false;

const isBrokenPipe = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'EPIPE';

/**
 * Writes to the process's stdout. A reader that stops early (`petstore keys list | head`) closes the pipe:
 * that is its choice, not a failure, so the command ends as it would have, with its exit code and no
 * `error: write EPIPE`, and writes nothing more. Other write errors still fail the command.
 */
function writeStdout(text: string): undefined | Promise<void> {
  if (stdoutClosed) return undefined;
  if (process.stdout.listenerCount('error') === 0) {
    process.stdout.on('error', (error) => {
      if (!isBrokenPipe(error)) throw error;
      stdoutClosed = true;
    });
  }
  // Waits for 'drain' once the stream's buffer is full, so a large export never piles up in memory.
  if (process.stdout.write(text)) return undefined;
  return once(process.stdout, 'drain').then(
    () => undefined,
    (error: unknown) => {
      if (!isBrokenPipe(error)) throw error;
      stdoutClosed = true;
    },
  );
}

const processIo: CliIo = {
  stdout: writeStdout,
  stderr: (text) => process.stderr.write(text),
  get stderrIsTerminal() {
    return process.stderr.isTTY === true;
  },
};

const COMMANDS: readonly AdminCommand[] = [
  keysCreate,
  keysList,
  keysRevoke,
  keysRoll,
  keysExpire,
  keysShow,
  keysAudit,
  petsAdd,
  petsImport,
  petsExport,
  ordersImport,
  reservationsList,
  reservationsRelease,
  webhooksAdd,
  webhooksList,
  webhooksRemove,
  webhooksEnable,
  webhooksDeliveries,
];
const GROUPS = ['keys', 'pets', 'orders', 'reservations', 'webhooks'] as const;
const HELP_WORDS = ['--help', '-h', 'help'];

const TOP_HELP = `Usage: petstore <command> [options]

Runs the pet store's HTTP service, or administers its database (PETSTORE_DB, default
./data/petstore.db; DATABASE_URL for PostgreSQL).

Commands:
  serve    starts the HTTP service: the API, /docs and /console ("petstore serve --help" lists its settings)
${COMMANDS.map((c) => `  ${c.synopsis}`).join('\n')}

Run "petstore <command> --help" for the details of one command.
Results go to stdout and messages to stderr. The exit code is 0 on success and 1 on bad input, in
which case nothing is written.`;

const groupHelp = (group: string): string =>
  `Usage: petstore ${group} <command>\n\nCommands:\n${COMMANDS.filter((c) => c.name.startsWith(`${group} `))
    .map((c) => `  ${c.synopsis}`)
    .join('\n')}\n\nRun "petstore ${group} <command> --help" for the details of one command.`;

/** True when `argv` (the words after the program's name) asks for an admin command or its help. */
export function isAdminCommand(argv: readonly string[]): boolean {
  const first = argv[0];
  return first !== undefined && ((GROUPS as readonly string[]).includes(first) || HELP_WORDS.includes(first));
}

/**
 * The help that `argv` asks for: the list of commands (`--help`), a group's (`keys --help`) or a
 * command's (`keys create --help`); `undefined` when it asks for something else. It needs no store and
 * no package, so `petstore ... --help` answers before either is loaded.
 */
export function adminHelp(argv: readonly string[]): string | undefined {
  const [group, verb, ...rest] = argv;
  if (group === undefined) return undefined;
  if (HELP_WORDS.includes(group)) return TOP_HELP;
  if (!(GROUPS as readonly string[]).includes(group) || verb === undefined) return undefined;
  if (HELP_WORDS.includes(verb)) return groupHelp(group);
  const command = COMMANDS.find((c) => c.name === `${group} ${verb}`);
  if (command === undefined) return undefined;
  const line = parseCommandLine(rest, command.options, command.flags);
  return line.ok && line.value.help ? command.help : undefined;
}

/**
 * Runs one admin command, such as `["keys", "create", "--plan", "free"]`, and resolves to the exit
 * code: 0 when it did what was asked, 1 on bad input (a one-line message on stderr, nothing written).
 * Results go to stdout alone, so `keys create` can be piped. Failures of the store throw.
 */
export async function runAdminCli(argv: readonly string[], deps: AdminCliDeps, io: CliIo = processIo): Promise<number> {
  const refuse = (message: string): number => {
    // One line, whatever a message quotes: scripts read stderr line by line.
    io.stderr(`error: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  };
  const help = adminHelp(argv);
  if (help !== undefined) {
    io.stdout(`${help}\n`);
    return 0;
  }
  const [group, verb, ...rest] = argv;
  if (group === undefined) return refuse('no command given; run with --help to see the commands');
  if (!(GROUPS as readonly string[]).includes(group)) {
    return refuse(`unknown command "${group}"; run with --help to see the commands`);
  }
  if (verb === undefined) return refuse(`"${group}" needs a command; run "${group} --help" to see them`);
  const command = COMMANDS.find((c) => c.name === `${group} ${verb}`);
  if (command === undefined) return refuse(`unknown command "${group} ${verb}"; run "${group} --help" to see them`);

  const line = parseCommandLine(rest, command.options, command.flags);
  if (!line.ok) return refuse(`${line.error} for "${command.name}"; run "${command.name} --help"`);
  const given = line.value.positionals;
  const optional = command.optionalPositionals ?? [];
  if (given.length < command.positionals.length || given.length > command.positionals.length + optional.length) {
    const names = [...command.positionals, ...optional.map((name) => `[${name}]`)];
    const wanted = names.length === 0 ? 'no arguments' : names.join(' ');
    return refuse(`"${command.name}" takes ${wanted}, got ${given.length === 0 ? 'none' : given.join(' ')}`);
  }
  const progress = new Progress(io.stderrIsTerminal === true ? (text) => io.stderr(text) : undefined);
  let outcome: Awaited<ReturnType<AdminCommand['run']>>;
  try {
    outcome = await command.run(line.value, deps, { write: async (text) => io.stdout(text), progress });
  } finally {
    progress.clear();
  }
  if (!outcome.ok) return refuse(outcome.error);
  for (const text of outcome.value.stdout) await io.stdout(`${text}\n`);
  if (outcome.value.note !== undefined) io.stderr(`${outcome.value.note}\n`);
  return 0;
}
