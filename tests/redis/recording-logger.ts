import type { RateLimiterLogger } from '../../src/adapters/redis/failover-rate-limiter.js';

/** A logger that keeps what it is told, for tests to read. */
export class RecordingLogger implements RateLimiterLogger {
  readonly lines: { level: 'warn' | 'info'; obj: object; msg: string }[] = [];

  warn(obj: object, msg: string): void {
    this.lines.push({ level: 'warn', obj, msg });
  }

  info(obj: object, msg: string): void {
    this.lines.push({ level: 'info', obj, msg });
  }
}
