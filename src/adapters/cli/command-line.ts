import { fail, ok, type Result } from '../../domain/result.js';

/** The words after a command's name, split into options and positional arguments. */
export interface CommandLine {
  /** Options by name, without the leading `--`. */
  readonly options: ReadonlyMap<string, string>;
  readonly positionals: readonly string[];
  /** The flags given (options without a value, such as `json`), without the leading `--`. */
  readonly flags: ReadonlySet<string>;
  /** `--help` or `-h` was given. */
  readonly help: boolean;
}

/** The longest argument taken, in characters: longer than any path or text an option takes. */
export const ARGUMENT_MAX = 4_096;

/**
 * What Node makes of bytes in an argument that are not UTF-8: U+FFFD, the replacement character. A
 * name typed as `$'Caf\xe9'` would otherwise be stored as `Caf�`, where a file holding the same bytes
 * is refused; a user who means U+FFFD itself has no reason to.
 */
const REPLACEMENT_CHARACTER = '\uFFFD';

/** Why an argument cannot be taken at all, whatever it is for; `undefined` when it can. */
function argumentProblem(word: string, position: number): string | undefined {
  if (word.length > ARGUMENT_MAX) {
    return `argument ${position} is ${word.length} characters long; the longest taken is ${ARGUMENT_MAX}`;
  }
  if (word.includes(REPLACEMENT_CHARACTER)) return `argument ${position} is not valid UTF-8 text`;
  return undefined;
}

/**
 * Splits `args` by the option names a command takes. Every option takes a value, as `--name value` or
 * `--name=value`; the word after an option is its value even when it starts with `-`, so `--id -5`
 * means what it says. A flag (one of `flags`, such as `--json`) takes none. After `--`, every word is
 * positional. An unknown or repeated option, one without a value, or a flag given one, is refused, so
 * that a typo is never silently ignored; so is an argument that is not UTF-8 or is longer than
 * {@link ARGUMENT_MAX} (a message never repeats it: it may be 100 KB of junk).
 */
export function parseCommandLine(
  args: readonly string[],
  known: readonly string[],
  flagNames: readonly string[] = [],
): Result<CommandLine, string> {
  for (const [i, word] of args.entries()) {
    const problem = argumentProblem(word, i + 1);
    if (problem !== undefined) return fail(problem);
  }
  const options = new Map<string, string>();
  const positionals: string[] = [];
  const flags = new Set<string>();
  let help = false;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as string;
    if (word === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (word === '--help' || word === '-h') {
      help = true;
      continue;
    }
    if (!word.startsWith('-') || word === '-') {
      positionals.push(word);
      continue;
    }
    const equals = word.indexOf('=');
    const name = word.slice(2, equals === -1 ? undefined : equals);
    if (word.startsWith('--') && flagNames.includes(name)) {
      if (equals !== -1) return fail(`option --${name} takes no value`);
      if (flags.has(name)) return fail(`option --${name} is given twice`);
      flags.add(name);
      continue;
    }
    if (!word.startsWith('--') || !known.includes(name)) return fail(`unknown option ${word.split('=')[0]}`);
    if (options.has(name)) return fail(`option --${name} is given twice`);
    let value: string | undefined;
    if (equals === -1) {
      i += 1;
      value = args[i];
    } else {
      value = word.slice(equals + 1);
    }
    if (value === undefined) return fail(`option --${name} needs a value`);
    options.set(name, value);
  }
  return ok({ options, positionals, flags, help });
}
