import type { InventoryCore } from '../../application/inventory-core.js';
import type { Clock } from '../../application/ports/clock.js';
import type { WebhookAdmin } from '../../application/webhook-core.js';
import type { Result } from '../../domain/result.js';
import type { CommandLine } from './command-line.js';
import type { Progress } from './progress.js';

/** The use cases the admin CLI drives, and the clock it checks the times it is given against. */
export interface AdminCliDeps
  extends Pick<
    InventoryCore,
    | 'issueApiKey'
    | 'listApiKeys'
    | 'revokeApiKey'
    | 'rollApiKey'
    | 'setKeyExpiry'
    | 'getApiKey'
    | 'listKeyAudit'
    | 'addPets'
    | 'importOrders'
    | 'exportPets'
    | 'listHolds'
    | 'releaseHolds'
    | 'releaseReservation'
  > {
  readonly clock: Clock;
  readonly webhooks: WebhookAdmin;
}

/** What a command that succeeded prints: its result for stdout, and a note for a person on stderr. */
export interface Printed {
  readonly stdout: readonly string[];
  readonly note?: string;
}

/** What a command may use beside its result: stdout for a result too large to hold, and a progress line. */
export interface CommandIo {
  /** Writes part of the result to stdout; resolves once more may be written. */
  write(text: string): Promise<void>;
  readonly progress: Progress;
}

/** One command of the CLI, such as `keys create`. */
export interface AdminCommand {
  /** The two words that name it. */
  readonly name: string;
  /** The line shown in the list of commands. */
  readonly synopsis: string;
  /** The whole text of `<command> --help`. */
  readonly help: string;
  readonly options: readonly string[];
  /** The options it takes without a value, such as `json`; none when absent. */
  readonly flags?: readonly string[];
  /** The names of the positional arguments it takes, all required. */
  readonly positionals: readonly string[];
  /** The names of the positional arguments it may take after those; none when absent. */
  readonly optionalPositionals?: readonly string[];
  /** Runs it; a failure is a one-line message about the input, and then nothing has been written. */
  run(line: CommandLine, deps: AdminCliDeps, io: CommandIo): Promise<Result<Printed, string>>;
}

/** The value of an option the command requires, or a message naming it. */
export const required = (line: CommandLine, name: string): Result<string, string> => {
  const value = line.options.get(name);
  return value === undefined ? { ok: false, error: `option --${name} is required` } : { ok: true, value };
};
