import { afterEach, describe, expect, it, vi } from 'vitest';
import { Lifecycle, type Part } from '../../src/composition/lifecycle.js';

/** A part that writes what happens to it into `log`; `start: false` makes one opened as it is made. */
function part(name: string, log: string[], options: { start?: boolean; stop?: () => Promise<void> } = {}): Part {
  return {
    name,
    ...(options.start === false ? {} : { start: () => void log.push(`start ${name}`) }),
    stop: async () => {
      log.push(`stop ${name}`);
      await options.stop?.();
    },
  };
}

describe('the lifecycle of the service’s parts', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts the parts in the order they registered and stops them in reverse, each once', async () => {
    const log: string[] = [];
    const lifecycle = new Lifecycle({ stopTimeoutMs: 1_000 });
    lifecycle.register(part('store', log, { start: false }));
    lifecycle.register(part('purge', log));
    lifecycle.register(part('listener', log));
    await lifecycle.start();
    const [first, second] = [lifecycle.stop(), lifecycle.stop()];
    expect(second).toBe(first);
    expect(await first).toEqual([]);
    expect(log).toEqual(['start purge', 'start listener', 'stop listener', 'stop purge', 'stop store']);
  });

  it('stops what was made but never started only when making it opened it (no start of its own)', async () => {
    const log: string[] = [];
    const lifecycle = new Lifecycle({ stopTimeoutMs: 1_000 });
    lifecycle.register(part('store', log, { start: false }));
    lifecycle.register(part('listener', log));
    await lifecycle.stop();
    expect(log).toEqual(['stop store']);
  });

  it('records a stop that throws and still stops the parts after it', async () => {
    const log: string[] = [];
    const lifecycle = new Lifecycle({ stopTimeoutMs: 1_000 });
    lifecycle.register(part('store', log, { start: false }));
    const broken = new Error('flush failed');
    lifecycle.register(part('key uses', log, { start: false, stop: () => Promise.reject(broken) }));
    expect(await lifecycle.stop()).toEqual([{ part: 'key uses', error: broken }]);
    expect(log).toEqual(['stop key uses', 'stop store']);
  });

  it('gives up a stop that hangs past the bound, and stops the parts after it', async () => {
    vi.useFakeTimers();
    const log: string[] = [];
    const lifecycle = new Lifecycle({ stopTimeoutMs: 5_000 });
    lifecycle.register(part('store', log, { start: false }));
    lifecycle.register(part('dispatch', log, { start: false, stop: () => new Promise(() => {}) }));
    const stopped = lifecycle.stop();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(log).toEqual(['stop dispatch']);
    await vi.advanceTimersByTimeAsync(1);
    const failures = await stopped;
    expect(failures.map((f) => [f.part, String(f.error)])).toEqual([
      ['dispatch', 'Error: dispatch did not stop within 5000 ms'],
    ]);
    expect(log).toEqual(['stop dispatch', 'stop store']);
  });

  it('rejects a start that fails; the stop then stops what runs, not the part that failed nor those after it', async () => {
    const log: string[] = [];
    const lifecycle = new Lifecycle({ stopTimeoutMs: 1_000 });
    lifecycle.register(part('store', log, { start: false }));
    lifecycle.register(part('purge', log));
    lifecycle.register({ name: 'listener', start: () => Promise.reject(new Error('EADDRINUSE')), stop: () => {} });
    lifecycle.register(part('later', log));
    await expect(lifecycle.start()).rejects.toThrow('EADDRINUSE');
    await lifecycle.stop();
    expect(log).toEqual(['start purge', 'stop purge', 'stop store']);
  });

  it('lists the health checks of its parts under their names, and refuses a part made after the stop', async () => {
    const lifecycle = new Lifecycle({ stopTimeoutMs: 1_000 });
    lifecycle.register({ name: 'sqlite', stop: () => {}, health: { healthy: () => true, critical: true } });
    lifecycle.register({ name: 'purge', start: () => {}, stop: () => {} });
    expect(lifecycle.healthChecks().map((c) => [c.name, c.healthy(), c.critical])).toEqual([['sqlite', true, true]]);
    await lifecycle.stop();
    expect(() => lifecycle.register({ name: 'late', stop: () => {} })).toThrow(
      'late was made after the service stopped',
    );
  });
});
