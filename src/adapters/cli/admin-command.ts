import type { Clock } from '../../application/ports/clock.js';
import type { AddPets } from '../../application/use-cases/add-pets.js';
import type { ExportPets } from '../../application/use-cases/export-pets.js';
import type { GetApiKey } from '../../application/use-cases/get-api-key.js';
import type { ImportOrders } from '../../application/use-cases/import-orders.js';
import type { IssueApiKey } from '../../application/use-cases/issue-api-key.js';
import type { ListApiKeys } from '../../application/use-cases/list-api-keys.js';
import type { ListHolds } from '../../application/use-cases/list-holds.js';
import type { ListKeyAudit } from '../../application/use-cases/list-key-audit.js';
import type { ReleaseHolds } from '../../application/use-cases/release-holds.js';
import type { RevokeApiKey } from '../../application/use-cases/revoke-api-key.js';
import type { RollApiKey } from '../../application/use-cases/roll-api-key.js';
import type { SetKeyExpiry } from '../../application/use-cases/set-key-expiry.js';
import type { ReleaseReservation } from '../../application/use-cases/settle-reservation.js';
import type { WebhookAdmin } from '../../application/webhook-core.js';
import type { Result } from '../../domain/result.js';
import type { CommandLine } from './command-line.js';
import type { Progress } from './progress.js';

/** The use cases the admin CLI drives, and the clock it checks the times it is given against. */
export interface AdminCliDeps {
  readonly clock: Clock;
  readonly issueApiKey: IssueApiKey;
  readonly listApiKeys: ListApiKeys;
  readonly revokeApiKey: RevokeApiKey;
  readonly rollApiKey: RollApiKey;
  readonly setKeyExpiry: SetKeyExpiry;
  readonly getApiKey: GetApiKey;
  readonly listKeyAudit: ListKeyAudit;
  readonly addPets: AddPets;
  readonly importOrders: ImportOrders;
  readonly exportPets: ExportPets;
  readonly listHolds: ListHolds;
  readonly releaseHolds: ReleaseHolds;
  readonly releaseReservation: ReleaseReservation;
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
