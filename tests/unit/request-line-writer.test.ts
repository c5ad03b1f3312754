import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RequestLogFields } from '../../src/adapters/http/access-log.js';
import { RequestLineWriter } from '../../src/adapters/http/request-line-writer.js';

const AT = 1_764_000_000_123;

/** A sink that keeps every chunk it is handed. */
function sink(): { chunks: string[]; write(chunk: string): boolean } {
  const chunks: string[] = [];
  return {
    chunks,
    write(chunk: string) {
      chunks.push(chunk);
      return true;
    },
  };
}

/** The line pino writes for these fields, stamped with AT. */
function pinoLine(level: 'info' | 'debug', fields: RequestLogFields, msg: string): string {
  const out = sink();
  const logger = pino({ level: 'debug', timestamp: () => `,"time":${AT}` }, out);
  logger[level](fields, msg);
  return out.chunks.join('');
}

const LINES: readonly RequestLogFields[] = [
  { requestId: 'a1b2', method: 'PATCH', route: '/v1/inventory/:petId', status: 200, ms: 1.25, keyId: 'key_abc' },
  { requestId: 'r', method: 'GET', route: '/v1/inventory', status: 429, ms: 0, keyId: null },
  // What a client can put in an unrouted path or a request id: quotes, backslashes, controls, non-ASCII.
  {
    requestId: 'id "quoted" \\ \n\t',
    method: 'GET',
    route: '/v1/é/\u0001/\u2028/😀',
    status: 404,
    ms: 12.5,
    keyId: null,
  },
];

describe('RequestLineWriter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(LINES)('writes the line pino writes, character for character: %j', (fields) => {
    const out = sink();
    const writer = new RequestLineWriter(out, { level: 'debug', maxDelayMs: 100, now: () => AT });
    writer.info(fields, 'request');
    writer.debug(fields, 'request');
    writer.flush();
    expect(out.chunks.join('')).toBe(pinoLine('info', fields, 'request') + pinoLine('debug', fields, 'request'));
  });

  it('answers and writes by level as pino does, nothing when silent', () => {
    const out = sink();
    const atInfo = new RequestLineWriter(out, { level: 'info', maxDelayMs: 100 });
    expect(atInfo.isLevelEnabled('info')).toBe(true);
    expect(atInfo.isLevelEnabled('debug')).toBe(false);
    atInfo.debug(LINES[0] as RequestLogFields, 'request');
    atInfo.flush();
    expect(out.chunks).toEqual([]);
    const silent = new RequestLineWriter(out, { level: 'silent', maxDelayMs: 100 });
    expect(silent.isLevelEnabled('fatal')).toBe(false);
    silent.info(LINES[0] as RequestLogFields, 'request');
    silent.flush();
    expect(out.chunks).toEqual([]);
  });

  it('hands the lines over together once the delay has passed, not before', () => {
    vi.useFakeTimers();
    const out = sink();
    const writer = new RequestLineWriter(out, { level: 'info', maxDelayMs: 100 });
    writer.info(LINES[0] as RequestLogFields, 'request');
    vi.advanceTimersByTime(60);
    writer.info(LINES[1] as RequestLogFields, 'request');
    vi.advanceTimersByTime(39);
    expect(out.chunks).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(out.chunks).toHaveLength(1);
    expect(out.chunks[0]?.split('\n')).toHaveLength(3);
    // The next line starts a new wait.
    writer.info(LINES[1] as RequestLogFields, 'request');
    vi.advanceTimersByTime(100);
    expect(out.chunks).toHaveLength(2);
  });

  it('hands the lines over at once when 16 KB of them wait', () => {
    vi.useFakeTimers();
    const out = sink();
    const writer = new RequestLineWriter(out, { level: 'info', maxDelayMs: 60_000 });
    const line = pinoLine('info', LINES[0] as RequestLogFields, 'request').length;
    const lines = Math.ceil(16_384 / line);
    for (let i = 0; i < lines - 1; i += 1) writer.info(LINES[0] as RequestLogFields, 'request');
    expect(out.chunks).toEqual([]);
    writer.info(LINES[0] as RequestLogFields, 'request');
    expect(out.chunks).toHaveLength(1);
    expect(out.chunks[0]?.trimEnd().split('\n')).toHaveLength(lines);
  });

  it('flush hands over what waits and cancels the wait', () => {
    vi.useFakeTimers();
    const out = sink();
    const writer = new RequestLineWriter(out, { level: 'info', maxDelayMs: 100 });
    writer.info(LINES[0] as RequestLogFields, 'request');
    writer.flush();
    expect(out.chunks).toHaveLength(1);
    vi.advanceTimersByTime(200);
    expect(out.chunks).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
