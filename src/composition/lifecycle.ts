import type { ContainerModuleLoadOptions } from 'inversify';
import { type HealthCheck, id, type Resolved, type Token, token } from './tokens.js';

/**
 * A part of the service that holds something open: a timer, a listener, a connection, a thread. It is
 * registered with the {@link Lifecycle} as it is made (see {@link bindPart}).
 */
export interface Part {
  /** What the logs and /readyz call it. */
  readonly name: string;
  /**
   * Starts its background work (timers, a listener). Absent when making the part opened all it holds
   * (a store, a client): such a part runs from its registration.
   */
  start?(): Promise<void> | void;
  /** Releases all it holds. Called once, and only when the part runs. */
  stop(): Promise<void> | void;
  /** What /readyz asks of it, when it can be down (a store, Redis). */
  readonly health?: Omit<HealthCheck, 'name'>;
}

/** A part whose stop threw, or did not end within the bound. */
export interface StopFailure {
  readonly part: string;
  readonly error: unknown;
}

interface Entry {
  readonly part: Part;
  running: boolean;
}

/**
 * The one place where the service's parts start and stop. Each part registers itself as it is made; a
 * part is made after the parts it is made from (the container resolves those first), so the order of
 * registration is an order of dependency: `start` starts the parts in it, `stop` stops them in reverse,
 * each once, every dependent before what it depends on (the HTTP listener before the store its requests
 * use). A stop that throws or hangs past `stopTimeoutMs` is recorded and the next part stopped anyway.
 */
export class Lifecycle {
  private readonly entries: Entry[] = [];
  private checks: readonly HealthCheck[] = [];
  private starting: Promise<void> | undefined;
  private stopping: Promise<readonly StopFailure[]> | undefined;

  constructor(private readonly options: { readonly stopTimeoutMs: number }) {}

  /** Adds `part`, after every part registered so far. Refused once the lifecycle stops: it would never stop. */
  register(part: Part): void {
    if (this.stopping !== undefined) throw new Error(`${part.name} was made after the service stopped`);
    this.entries.push({ part, running: part.start === undefined });
    const { health } = part;
    if (health !== undefined) this.checks = [...this.checks, { ...health, name: part.name }];
  }

  /** The health checks of the parts registered so far, in their order. */
  healthChecks(): readonly HealthCheck[] {
    return this.checks;
  }

  /**
   * Starts every part registered so far, one after the other in their order; resolves once all run.
   * When one fails, it rejects with that failure: the caller stops what runs (see `stop`).
   */
  start(): Promise<void> {
    this.starting ??= this.startAll();
    return this.starting;
  }

  /**
   * Stops every running part in the reverse order of registration; resolves, once all are stopped or
   * given up, to the failures (none when the stop was clean). A stop during `start` waits for it first.
   * Calling it again answers the same promise.
   */
  stop(): Promise<readonly StopFailure[]> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async startAll(): Promise<void> {
    for (const entry of this.entries) {
      if (entry.running || this.stopping !== undefined) continue;
      await entry.part.start?.();
      entry.running = true;
    }
  }

  private async stopAll(): Promise<readonly StopFailure[]> {
    await this.starting?.catch(() => {});
    const failures: StopFailure[] = [];
    for (const entry of [...this.entries].reverse()) {
      if (!entry.running) continue;
      entry.running = false;
      const outcome = await stopWithin(entry.part, this.options.stopTimeoutMs);
      if (!outcome.ok) failures.push({ part: entry.part.name, error: outcome.error });
    }
    return failures;
  }
}

/** Runs `part.stop()`, and gives it up once `timeoutMs` passed: a stop that hangs cannot hold the others. */
async function stopWithin(part: Part, timeoutMs: number): Promise<{ ok: true } | { ok: false; error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  // Not unref'd: a stop waiting on a promise that nothing holds open must still be given up, not end the process.
  const timedOut = new Promise<{ ok: false; error: unknown }>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, error: new Error(`${part.name} did not stop within ${timeoutMs} ms`) }),
      timeoutMs,
    );
  });
  const stopped = (async () => part.stop())().then(
    () => ({ ok: true }) as const,
    (error: unknown) => ({ ok: false, error }) as const,
  );
  try {
    return await Promise.race([stopped, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The lifecycle of the container's parts: bound by buildContainer, one per container. */
export const LIFECYCLE = token<Lifecycle>('Lifecycle');

/**
 * Binds `token` to what `make` makes of `deps` (awaited when it is a promise: resolve the graph with
 * `resolveAsync` then), and registers the part `partOf` makes of it (and of `deps`) with the lifecycle as it is made.
 * A binding that opens or starts something is written with it, so that the module says what runs and
 * how it stops; nothing else starts or stops a part. `token` may be bound several times (a list).
 */
export function bindPart<T, const D extends readonly Token<unknown>[]>(
  { bind }: ContainerModuleLoadOptions,
  token: Token<T>,
  deps: D,
  make: (...values: Resolved<D>) => T | Promise<T>,
  partOf: (value: T, ...values: Resolved<D>) => Part,
): void {
  bind(id(token))
    .toResolvedValue(
      (lifecycle: Lifecycle, ...resolved: unknown[]) => {
        const values = resolved as Resolved<D>;
        const register = (value: T): T => {
          lifecycle.register(partOf(value, ...values));
          return value;
        };
        const made = make(...values);
        return made instanceof Promise ? made.then(register) : register(made);
      },
      [id(LIFECYCLE), ...deps.map(id)],
    )
    .inSingletonScope();
}
