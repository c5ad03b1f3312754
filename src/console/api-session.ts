// The client's module itself, not its entry: the entry checks its peer with a top-level await, which the
// page's script (one IIFE bundle, lossless-json inside it) has no use for.
import { type ApiResult, createPetstoreClient, type PetstoreClient } from '../client/petstore-client.js';
import { type KeyRefusal, plainRefusal } from './plain-words.js';

/** Where the key lives while the tab is open: sessionStorage only, never a URL or localStorage. */
const KEY_ITEM = 'petstore-console.api-key';

/** How often a read refused with 429 is tried again before the page gives up and says so. */
const TRIES_AFTER_429 = 3;

/** What the page shows while the API asks it to wait (429 Retry-After). */
export interface Pause {
  readonly untilMs: number;
  readonly message: string;
}

/** A failure to reach the service at all, in words for the page. */
export class Unreachable extends Error {}

/** The session ended (sign-out, or a 401): what was in flight is dropped, and nothing more is sent. */
export class SessionEnded extends Error {}

/** A write the page did not send, since the API asked to wait: the person's input stays for a retry. */
export class NotSent extends Error {}

/**
 * The signed-in person's way to the API: the typed client with their key, and the page's manners
 * toward the rate limit. A read that meets a 429 waits the Retry-After the API names, tells the page,
 * and every read waits behind the pause; a write never waits (see `write`). A 401 ends the session at
 * once: nothing is sent with the key again. Ending it (sign-out too) aborts what is in flight.
 */
export class ApiSession {
  readonly client: PetstoreClient;
  private pausedUntilMs = 0;
  private readonly inFlight = new AbortController();

  constructor(
    readonly apiKey: string,
    private readonly onPause: (pause: Pause | undefined) => void,
    private readonly onKeyRefused: (why: KeyRefusal) => void,
  ) {
    const baseUrl = new URL('v1', document.baseURI).href;
    const signal = this.inFlight.signal;
    // Every request goes through here: none leaves once the session ended, and each is aborted by its end.
    const guarded: typeof fetch = (input, init) =>
      signal.aborted ? Promise.reject(new SessionEnded()) : fetch(input, { ...init, signal });
    this.client = createPetstoreClient({ baseUrl, apiKey, fetch: guarded });
  }

  /** The key kept for this tab, if one was signed in. */
  static stored(): string | undefined {
    return sessionStorage.getItem(KEY_ITEM) ?? undefined;
  }

  remember(): void {
    sessionStorage.setItem(KEY_ITEM, this.apiKey);
  }

  static forget(): void {
    sessionStorage.removeItem(KEY_ITEM);
  }

  get ended(): boolean {
    return this.inFlight.signal.aborted;
  }

  /** Ends the session: what is in flight is aborted, and no request is sent with this key again. */
  end(): void {
    this.inFlight.abort();
  }

  /** A GET of a file (the CSV) with the key, outside the typed client; aborted when the session ends. */
  async download(url: URL): Promise<Response> {
    if (this.ended || this.paused) throw new SessionEnded();
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${this.apiKey}` },
      signal: this.inFlight.signal,
    });
    if (response.status === 401) {
      const body = (await response.json()) as { code?: string };
      this.end();
      this.onKeyRefused(body.code === 'key_expired' ? 'key_expired' : 'unauthorized');
      throw new SessionEnded();
    }
    return response;
  }

  /** Whether the API asked to wait and the wait is not over: a poll then skips its turn. */
  get paused(): boolean {
    return Date.now() < this.pausedUntilMs;
  }

  /**
   * A read: sent once the API's last pause is over; on 429, waits Retry-After seconds and tries again, a
   * few times. Resolves to the last answer; rejects with Unreachable when the service is down, and with
   * SessionEnded once the session is over.
   */
  async send<T>(call: (client: PetstoreClient) => Promise<ApiResult<T>>): Promise<ApiResult<T>> {
    for (let attempt = 1; ; attempt += 1) {
      await this.waitOutPause();
      const answer = await this.once(call);
      if (answer.status !== 429 || attempt > TRIES_AFTER_429) return answer;
      this.pause(answer.headers.get('retry-after'));
    }
  }

  /**
   * A write: sent now or not at all. While the API asks to wait, or when it answers 429, it rejects with
   * NotSent: a write held for minutes would land after the person moved on, so they decide to retry.
   */
  async write<T>(call: (client: PetstoreClient) => Promise<ApiResult<T>>): Promise<ApiResult<T>> {
    if (this.paused) throw new NotSent(this.waitWords(this.pausedUntilMs));
    const answer = await this.once(call);
    if (answer.status !== 429) return answer;
    this.pause(answer.headers.get('retry-after'));
    throw new NotSent(this.waitWords(this.pausedUntilMs));
  }

  private async once<T>(call: (client: PetstoreClient) => Promise<ApiResult<T>>): Promise<ApiResult<T>> {
    if (this.ended) throw new SessionEnded();
    let answer: ApiResult<T>;
    try {
      answer = await call(this.client);
    } catch {
      if (this.ended) throw new SessionEnded();
      throw new Unreachable('The service cannot be reached. Check the connection and try again.');
    }
    if (this.ended) throw new SessionEnded();
    if (answer.status === 401 && !answer.ok) {
      this.end();
      this.onKeyRefused(answer.error.code === 'key_expired' ? 'key_expired' : 'unauthorized');
      throw new SessionEnded();
    }
    return answer;
  }

  private waitWords(untilMs: number): string {
    const seconds = Math.max(1, Math.ceil((untilMs - Date.now()) / 1000));
    return `The service asks us to wait ${seconds} s (until ${new Date(untilMs).toLocaleTimeString()}).`;
  }

  private pause(retryAfter: string | null): void {
    const seconds = Math.max(1, Number.parseInt(retryAfter ?? '', 10) || 1);
    this.pausedUntilMs = Date.now() + seconds * 1000;
    const at = new Date(this.pausedUntilMs).toLocaleTimeString();
    this.onPause({
      untilMs: this.pausedUntilMs,
      message: `The API asked us to slow down: trying again in ${seconds} s, at ${at}.`,
    });
  }

  private async waitOutPause(): Promise<void> {
    const left = this.pausedUntilMs - Date.now();
    if (left <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, left));
    if (this.ended) throw new SessionEnded();
    this.onPause(undefined);
  }
}

/** The words of an answered failure, for the person at the counter. */
export const refusalText = (answer: ApiResult<unknown>): string => (answer.ok ? '' : plainRefusal(answer.error));
