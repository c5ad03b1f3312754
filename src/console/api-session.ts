// The client's module itself, not its entry: the entry checks its peer with a top-level await, which the
// page's script (one IIFE bundle, lossless-json inside it) has no use for.
import { type ApiResult, createPetstoreClient, type PetstoreClient } from '../client/petstore-client.js';

/** Where the key lives while the tab is open: sessionStorage only, never a URL or localStorage. */
const KEY_ITEM = 'petstore-console.api-key';

/** How often a request refused with 429 is tried again before the page gives up and says so. */
const TRIES_AFTER_429 = 3;

/** What the page shows while the API asks it to wait (429 Retry-After). */
export interface Pause {
  readonly untilMs: number;
  readonly message: string;
}

/** A failure to reach the service at all, in words for the page. */
export class Unreachable extends Error {}

/**
 * The signed-in person's way to the API: the typed client with their key, and the page's manners
 * toward the rate limit. On a 429 it waits the Retry-After the API names, tells the page (so it can
 * say when it will try again), and sends nothing else meanwhile: every request waits behind the pause.
 */
export class ApiSession {
  readonly client: PetstoreClient;
  private pausedUntilMs = 0;

  constructor(
    readonly apiKey: string,
    private readonly onPause: (pause: Pause | undefined) => void,
  ) {
    const baseUrl = new URL('v1', document.baseURI).href;
    this.client = createPetstoreClient({ baseUrl, apiKey });
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

  /** Whether the API asked to wait and the wait is not over: a poll then skips its turn. */
  get paused(): boolean {
    return Date.now() < this.pausedUntilMs;
  }

  /**
   * Sends `call` once the API's last pause is over; on 429, waits Retry-After seconds and tries
   * again, a few times. Resolves to the last answer; rejects with Unreachable when the service is down.
   */
  async send<T>(call: (client: PetstoreClient) => Promise<ApiResult<T>>): Promise<ApiResult<T>> {
    for (let attempt = 1; ; attempt += 1) {
      await this.waitOutPause();
      let answer: ApiResult<T>;
      try {
        answer = await call(this.client);
      } catch {
        throw new Unreachable('The service cannot be reached; check the connection and try again.');
      }
      if (answer.status !== 429 || attempt > TRIES_AFTER_429) return answer;
      this.pause(answer.headers.get('retry-after'));
    }
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
    this.onPause(undefined);
  }
}

/** The words of an answered failure: the Error body's own message, which says what went wrong. */
export const refusalText = (answer: ApiResult<unknown>): string =>
  answer.ok ? '' : `${answer.error.message} (${answer.error.code})`;
