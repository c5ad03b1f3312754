/**
 * One read shared by the callers that ask for it at about the same time, and never one that began before
 * a caller asked: while a read is under way, the callers that arrive join the next one, sent when it
 * ends. So every caller gets an answer at least as new as its own call (what a fresh read of its own
 * would give), and under load one read answers many callers instead of one each.
 */
export class SharedRead<T> {
  /** The read under way, if one is. */
  private current: Promise<T> | undefined;
  /** The read the callers that arrived during `current` wait for; it starts when `current` ends. */
  private next: Promise<T> | undefined;

  constructor(private readonly readNow: () => Promise<T>) {}

  read(): Promise<T> {
    const current = this.current;
    if (current === undefined) return this.begin();
    if (this.next === undefined) {
      const after = (): Promise<T> => {
        this.next = undefined;
        return this.begin();
      };
      this.next = current.then(after, after);
    }
    return this.next;
  }

  private begin(): Promise<T> {
    const started = this.readNow();
    this.current = started;
    const end = (): void => {
      if (this.current === started) this.current = undefined;
    };
    started.then(end, end);
    return started;
  }
}
