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
 * The most texts kept for one part of the line. The route of a path no route took (cut and redacted,
 * but any a client sends) and the key ids are not bounded by the code: past this, they start afresh.
 */
const MAX_KEPT = 512;

/** The text kept for `value` in `texts`, made by `make` the first time. */
function kept<K, T>(texts: Map<K, T>, value: K, make: (value: K) => T): T {
  let text = texts.get(value);
  if (text === undefined) {
    text = make(value);
    if (texts.size >= MAX_KEPT) texts.clear();
    texts.set(value, text);
  }
  return text;
}

const headOf = (level: number): string => `{"level":${level},"time":`;
const methodPartOf = (method: string): string => `,"method":${JSON.stringify(method)}`;
const routePartOf = (route: string): string => `,"route":${JSON.stringify(route)}`;
const statusPartOf = (status: number): string => `,"status":${status},"ms":`;
const newEndings = (): Map<string | null, string> => new Map();

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
  /** pino's base fields, after the time, and the request id's name: `,"pid":…,"hostname":…,"requestId":`. */
  private readonly base = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"requestId":`;
  private readonly heads = new Map<number, string>();
  private readonly methods = new Map<string, string>();
  private readonly routes = new Map<string, string>();
  private readonly statuses = new Map<number, string>();
  /** By message, then by key id: the line's end. */
  private readonly endings = new Map<string, Map<string | null, string>>();
  private lastTime = Number.NaN;
  private lastTimeText = '';

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
    const now = this.now();
    if (now !== this.lastTime) {
      this.lastTime = now;
      this.lastTimeText = String(now);
    }
    // The line in nine parts, where a template of its fields made about twenty strings: the runs
    // around the request's own values are written once for each value (a level, a method, a route, a
    // status, a key and message: bounded sets), and only the time, the request id and the
    // milliseconds are written for every line.
    this.pending +=
      kept(this.heads, level, headOf) +
      this.lastTimeText +
      this.base +
      JSON.stringify(f.requestId) +
      kept(this.methods, f.method, methodPartOf) +
      kept(this.routes, f.route, routePartOf) +
      kept(this.statuses, f.status, statusPartOf) +
      f.ms +
      this.ending(f.keyId, msg);
    if (this.pending.length >= MAX_PENDING) this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(this.flushLater, this.options.maxDelayMs);
      this.timer.unref();
    }
  }

  /** The line's end after the milliseconds: its key id and message. */
  private ending(keyId: string | null, msg: string): string {
    const texts = kept(this.endings, msg, newEndings);
    let text = texts.get(keyId);
    if (text === undefined) {
      text = `,"keyId":${JSON.stringify(keyId)},"msg":${JSON.stringify(msg)}}\n`;
      if (texts.size >= MAX_KEPT) texts.clear();
      texts.set(keyId, text);
    }
    return text;
  }

  private readonly flushLater = (): void => {
    this.timer = undefined;
    this.flush();
  };
}
