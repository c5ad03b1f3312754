import { hostname } from 'node:os';
import { type Level, type LevelWithSilent, pino } from 'pino';
import type { AccessLogger, RequestLogFields } from './access-log.js';

/** Where the lines go: a pino destination (sonic-boom) fits. */
export interface LineSink {
  write(chunk: string): boolean;
}

/** pino's number for a level; silent is above every level. */
const levelNumber = (level: LevelWithSilent): number =>
  level === 'silent' ? Number.POSITIVE_INFINITY : (pino.levels.values[level] ?? Number.POSITIVE_INFINITY);

const INFO = levelNumber('info');
const DEBUG = levelNumber('debug');

/** Past this many characters waiting, the lines go at once. */
const MAX_PENDING = 16_384;

export interface RequestLineWriterOptions {
  /** The least level written, as pino's `level`. */
  readonly level: LevelWithSilent;
  /** The longest a line waits before it is handed to the sink. */
  readonly maxDelayMs: number;
  /** The time stamped on each line, in milliseconds since the epoch. */
  readonly now?: () => number;
}

/**
 * The access log's writer in production: the line pino would write for the request log, character
 * for character (level, time, pid, hostname, the line's fields in their order, msg), built directly,
 * and handed to the sink in batches. Under load the request log was a PATCH's costliest part after the
 * write itself (bench/README.md): pino serialises each line's object, and an idle asynchronous sink
 * starts a write in the thread pool for nearly every line. Here a line waits at most `maxDelayMs`, or
 * until 16 KB of lines wait, before it goes to the sink; `flush` hands over what waits, at shutdown.
 * Should the process die without one, the lines of its last `maxDelayMs` are lost (never a change).
 */
export class RequestLineWriter implements AccessLogger {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly least: number;
  private readonly now: () => number;
  /** pino's base fields, after the time: `,"pid":…,"hostname":…`. */
  private readonly base = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

  constructor(
    private readonly sink: LineSink,
    private readonly options: RequestLineWriterOptions,
  ) {
    this.least = levelNumber(options.level);
    this.now = options.now ?? Date.now;
  }

  isLevelEnabled(level: Level): boolean {
    return levelNumber(level) >= this.least;
  }

  info(fields: RequestLogFields, msg: string): void {
    this.write(INFO, fields, msg);
  }

  debug(fields: RequestLogFields, msg: string): void {
    this.write(DEBUG, fields, msg);
  }

  /** Hands every waiting line to the sink. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending === '') return;
    const lines = this.pending;
    this.pending = '';
    this.sink.write(lines);
  }

  private write(level: number, f: RequestLogFields, msg: string): void {
    if (level < this.least) return;
    this.pending +=
      `{"level":${level},"time":${this.now()}${this.base},"requestId":${JSON.stringify(f.requestId)},` +
      `"method":${JSON.stringify(f.method)},"route":${JSON.stringify(f.route)},"status":${f.status},` +
      `"ms":${f.ms},"keyId":${JSON.stringify(f.keyId)},"msg":${JSON.stringify(msg)}}\n`;
    if (this.pending.length >= MAX_PENDING) this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(this.flushLater, this.options.maxDelayMs);
      this.timer.unref();
    }
  }

  private readonly flushLater = (): void => {
    this.timer = undefined;
    this.flush();
  };
}
