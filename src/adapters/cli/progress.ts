/**
 * The progress line of a long command, on stderr when it is a terminal: rewritten in place (carriage
 * return, then erase to the end of the line), and erased before the command's result is printed.
 * Without a terminal nothing is written, so logs and scripts see only the result.
 */
export class Progress {
  private shown = '';

  /** `write` writes to stderr; undefined when stderr is not a terminal. */
  constructor(private readonly write: ((text: string) => void) | undefined) {}

  show(text: string): void {
    if (this.write === undefined || text === this.shown) return;
    this.write(`\r${text}\x1b[K`);
    this.shown = text;
  }

  clear(): void {
    if (this.shown === '') return;
    this.write?.('\r\x1b[K');
    this.shown = '';
  }
}

/** `1234567` as `1,234,567`. */
export const count = (n: number): string => n.toLocaleString('en-US');

/** Bytes as megabytes with one decimal, `80.0 MB`. */
export const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
