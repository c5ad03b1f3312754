import type { ApiKeyStore, KeyUse } from '../../application/ports/api-key-store.js';
import type { Clock } from '../../application/ports/clock.js';

export interface KeyUseRecorderOptions {
  /** A key's use is noted at most once this often, per process: the last-use time's accuracy. 60 s. */
  readonly everyMs?: number;
  /** How often the noted uses are written, in one batch. 5 s. */
  readonly flushEveryMs?: number;
  /** Told when a batch could not be written; its uses are kept for the next. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Records when keys are used, off the request path: a request only notes its key in memory (a map
 * lookup), at most once a minute a key; a timer writes what was noted in one batch. A request never
 * waits for the store, and a busy key costs one write a minute per process, however many requests it
 * makes. The stored time is a use's to within `everyMs` plus a flush. A failed batch is kept and
 * written with the next one, so an outage of the store delays last uses rather than losing them.
 */
export class KeyUseRecorder {
  private readonly everyMs: number;
  private readonly flushEveryMs: number;
  /** When each key was last noted: a use sooner after it is not noted again. */
  private readonly notedAt = new Map<string, number>();
  /** Uses noted and not yet written, a key's newest. */
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly keys: Pick<ApiKeyStore, 'recordUses'>,
    private readonly clock: Clock,
    private readonly options: KeyUseRecorderOptions = {},
  ) {
    this.everyMs = options.everyMs ?? 60_000;
    this.flushEveryMs = options.flushEveryMs ?? 5_000;
  }

  noted(keyId: string): void {
    const nowMs = this.clock.nowMs();
    const last = this.notedAt.get(keyId);
    if (last !== undefined && nowMs - last < this.everyMs) return;
    this.notedAt.set(keyId, nowMs);
    this.pending.set(keyId, nowMs);
  }

  /** Starts writing noted uses every `flushEveryMs`; the timer alone does not keep the process alive. */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.flush(), this.flushEveryMs);
    this.timer.unref();
  }

  /** Writes every use noted so far, in one batch; one flush at a time. */
  async flush(): Promise<void> {
    if (this.flushing !== undefined) await this.flushing;
    if (this.pending.size === 0) return;
    const batch: KeyUse[] = [...this.pending].map(([keyId, atMs]) => ({ keyId, atMs }));
    this.pending = new Map();
    this.forgetOld();
    this.flushing = this.keys.recordUses(batch).then(
      () => undefined,
      (error: unknown) => {
        // Kept for the next batch, unless a newer use of the key was noted meanwhile.
        for (const use of batch) if (!this.pending.has(use.keyId)) this.pending.set(use.keyId, use.atMs);
        this.options.onError?.(error);
      },
    );
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Forgets keys noted longer ago than `everyMs`: their next use is noted anyway, so memory stays bounded. */
  private forgetOld(): void {
    const nowMs = this.clock.nowMs();
    for (const [keyId, atMs] of this.notedAt) if (nowMs - atMs >= this.everyMs) this.notedAt.delete(keyId);
  }
}
