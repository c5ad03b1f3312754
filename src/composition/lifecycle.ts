/** What /readyz asks of the parts that can be down (a store, Redis). */
export interface HealthCheck {
  readonly name: string;
  healthy(): boolean;
  /** Whether the process is unready while this check fails; otherwise it is only reported. */
  readonly critical: boolean;
  /**
   * Resolves true once the part is up (a connection opened at start), false when `timeoutMs` passed
   * first. The server waits for it before it accepts, so its first requests are served as the rest are.
   */
  whenUp?(timeoutMs: number): Promise<boolean>;
}

/**
 * A part of the service that holds something open: a timer, a listener, a connection, a thread. It is
 * registered with the {@link Lifecycle} where it is made (see service-parts.ts).
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
 * The one place where the service's parts start and stop. Each part registers where it is made, and
 * service-parts.ts makes them in the order written there, each after the parts it is made from: `start`
 * starts the parts in that order, `stop` stops them in reverse, each once, every dependent before what
 * it depends on (the HTTP listener before the store its requests use). A stop that throws or hangs past
 * `stopTimeoutMs` is recorded and the next part stopped anyway.
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

/**
 * Waits, at most `timeoutMs`, for every part whose check can tell when it is up (see HealthCheck.whenUp);
 * resolves to the names of those that were not up by then.
 */
export async function partsNotUp(checks: readonly HealthCheck[], timeoutMs: number): Promise<string[]> {
  const up = await Promise.all(checks.map((check) => check.whenUp?.(timeoutMs) ?? true));
  return checks.filter((_, i) => !up[i]).map((check) => check.name);
}
