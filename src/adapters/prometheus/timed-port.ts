import { isAsyncIterable, isPromise, type PortMethod, wrapMethods } from '../shared/method-names.js';

/** Records how long one storage call took, and whether it failed. */
export interface OperationTimer {
  observe(seconds: number): void;
}

/** The two timers of one operation of one port. */
export interface OperationTimers {
  readonly ok: OperationTimer;
  readonly error: OperationTimer;
}

const since = (startedAt: number): number => (performance.now() - startedAt) / 1000;

/**
 * Passes the chunks of a listing through, timing only the store's own work: the time spent in its
 * `next()` calls, added up and recorded once when the listing ends. The consumer's time between
 * chunks (writing JSON, waiting for a slow client) is not the store's and is left out.
 */
async function* timedListing<T>(source: AsyncIterable<T>, timers: OperationTimers): AsyncGenerator<T, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  let spent = 0;
  // Set where the listing ends; read in `finally`, which also runs when the consumer stops early.
  const end = { done: false, failed: false };
  try {
    for (;;) {
      const startedAt = performance.now();
      let step: IteratorResult<T>;
      try {
        step = await iterator.next();
      } catch (error) {
        end.failed = true;
        timers.error.observe(spent + since(startedAt));
        throw error;
      }
      spent += since(startedAt);
      if (step.done === true) {
        end.done = true;
        return;
      }
      yield step.value;
    }
  } finally {
    if (!end.failed) timers.ok.observe(spent);
    // A consumer that stopped early: let the store release what it holds, as a bare for-await would.
    if (!end.done && !end.failed) await iterator.return?.();
  }
}

function timedMethod(method: PortMethod, target: object, timersOf: () => OperationTimers): PortMethod {
  // Found at the first call, so that only the methods callers use have series.
  let found: OperationTimers | undefined;
  return (...args) => {
    found ??= timersOf();
    const timers = found;
    const startedAt = performance.now();
    let result: unknown;
    try {
      // The port itself, not the wrapper, is `this`: private fields of adapter classes stay reachable.
      result = method.apply(target, args);
    } catch (error) {
      timers.error.observe(since(startedAt));
      throw error;
    }
    if (isPromise(result)) {
      // The caller gets the store's own promise: a promise chained to it would cost every call a turn
      // of the microtask queue. The branch only observes, and handles the rejection it sees.
      result.then(
        () => timers.ok.observe(since(startedAt)),
        () => timers.error.observe(since(startedAt)),
      );
      return result;
    }
    if (isAsyncIterable(result)) return timedListing(result, timers);
    timers.ok.observe(since(startedAt));
    return result;
  };
}

/**
 * Wraps a storage port so that every method call is timed, whatever adapter is behind it: a promise is
 * timed until it settles, a listing by the time its chunks took to produce, anything else as it
 * returns. `timersOf(operation)` is asked once per method name, at its first call.
 */
export function timedPort<T extends object>(port: T, timersOf: (operation: string) => OperationTimers): T {
  return wrapMethods(port, (method, target, name) => timedMethod(method, target, () => timersOf(name)));
}
