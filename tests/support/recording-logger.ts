import type { OutageLogger } from '../../src/application/ports/outage-logger.js';

/** A logger that keeps what it is told, for tests to read. */
export class RecordingLogger implements OutageLogger {
  readonly lines: { level: 'warn' | 'info'; obj: object; msg: string }[] = [];

  warn(obj: object, msg: string): void {
    this.lines.push({ level: 'warn', obj, msg });
  }

  info(obj: object, msg: string): void {
    this.lines.push({ level: 'info', obj, msg });
  }
}
