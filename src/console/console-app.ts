import { ApiSession, refusalText, Unreachable } from './api-session.js';
import { type ConsoleState, type Item, PAGE_SIZE, SIGNED_OUT, type StockFilter } from './console-state.js';
import { PetActions } from './pet-actions.js';

/** How often the page reads the change feed for rows someone else changed. */
const FEED_EVERY_MS = 2_000;
/** The feed's page: the most changes one poll reads. */
const FEED_PAGE = 1_000;

/** The `after=` of a Link rel="next" header, when it has one. */
function nextAfterOf(link: string | null): bigint | undefined {
  const after = link === null ? undefined : /[?&]after=(-?[0-9]+)/.exec(link)?.[1];
  return after === undefined ? undefined : BigInt(after);
}

/** The `after=` cursor of the feed's Link rel="next" header. */
const feedCursorOf = (link: string | null): string | undefined =>
  link === null ? undefined : (/[?&]after=([^&>]+)/.exec(link)?.[1] ?? undefined);

/**
 * The page's behaviour: signing in and out, the table's pages and filters, the change feed, and the
 * key's limits. It holds the state and hands every new state to `draw`; the pet's own actions are in
 * PetActions.
 */
export class ConsoleApp {
  state: ConsoleState = SIGNED_OUT;
  readonly pet: PetActions;
  private feedCursor: string | undefined;
  private feedTimer: ReturnType<typeof setTimeout> | undefined;
  /** The pets the last page of the feed named. */
  private lastFeed: readonly bigint[] = [];

  constructor(private readonly draw: (state: ConsoleState) => void) {
    this.pet = new PetActions(this);
  }

  update(patch: Partial<ConsoleState>): void {
    this.state = { ...this.state, ...patch };
    this.draw(this.state);
  }

  /** Signs in again with the key this tab kept, if any. */
  async resume(): Promise<void> {
    const key = ApiSession.stored();
    if (key !== undefined) await this.signIn(key);
  }

  async signIn(apiKey: string): Promise<void> {
    const key = apiKey.trim();
    if (key === '') return this.update({ signInNote: { kind: 'refused', text: 'Enter an API key to sign in.' } });
    const session = new ApiSession(key, (pause) => this.update({ pause }));
    const answer = await this.guard(() => session.send((c) => c.get('/rate_limit')));
    if (answer === undefined) return;
    if (!answer.ok) {
      ApiSession.forget();
      return this.update({ signInNote: { kind: 'refused', text: `Not signed in: ${refusalText(answer)}` } });
    }
    session.remember();
    this.update({
      ...SIGNED_OUT,
      session,
      limits: answer.data,
      canWrite: answer.data.key.scopes.includes('inventory:write'),
    });
    await this.loadPage(undefined, [undefined]);
    await this.catchUpFeed();
    this.scheduleFeed();
  }

  signOut(): void {
    ApiSession.forget();
    clearTimeout(this.feedTimer);
    this.feedCursor = undefined;
    this.update({ ...SIGNED_OUT, signInNote: { kind: 'done', text: 'Signed out. The key is forgotten.' } });
  }

  async applyFilter(filter: StockFilter): Promise<void> {
    const max = filter.maxAvailable.trim();
    if (max !== '' && !/^(0|[1-9][0-9]{0,9})$/.test(max)) {
      return this.update({ tableNote: { kind: 'refused', text: 'Low stock must be a whole number from 0.' } });
    }
    this.update({ filter: { status: filter.status, maxAvailable: max } });
    await this.loadPage(undefined, [undefined]);
  }

  async nextPage(): Promise<void> {
    const after = this.state.nextAfter;
    if (after !== undefined) await this.loadPage(after, [...this.state.pageStarts, after]);
  }

  async previousPage(): Promise<void> {
    const starts = this.state.pageStarts.slice(0, -1);
    if (starts.length > 0) await this.loadPage(starts[starts.length - 1], starts);
  }

  /** Reads the current page again: after someone's change, or one of ours. */
  reloadPage(): Promise<void> {
    const starts = this.state.pageStarts;
    return this.loadPage(starts[starts.length - 1], starts);
  }

  private async loadPage(after: bigint | undefined, pageStarts: readonly (bigint | undefined)[]): Promise<void> {
    const session = this.state.session;
    if (session === undefined) return;
    const { status, maxAvailable } = this.state.filter;
    const query = {
      limit: PAGE_SIZE,
      ...(after === undefined ? {} : { after }),
      ...(status === '' ? {} : { status: [status] }),
      ...(maxAvailable === '' ? {} : { maxAvailable: Number(maxAvailable) }),
    };
    const answer = await this.guard(() => session.send((c) => c.get('/inventory', { params: { query } })));
    if (answer === undefined || this.state.session !== session) return;
    if (!answer.ok) return this.update({ tableNote: { kind: 'refused', text: refusalText(answer) } });
    this.update({
      rows: answer.data as Item[],
      pageStarts,
      nextAfter: nextAfterOf(answer.headers.get('link')),
      tableNote: undefined,
    });
  }

  /** Reads the key's limits again: GET /v1/rate_limit is never counted against them. */
  async refreshLimits(): Promise<void> {
    const session = this.state.session;
    if (session === undefined || session.paused) return;
    const answer = await this.guard(() => session.send((c) => c.get('/rate_limit')));
    if (answer?.ok === true && this.state.session === session) this.update({ limits: answer.data });
  }

  /** Reads the feed to its end once at sign-in: the rows shown are newer than what it held. */
  private async catchUpFeed(): Promise<void> {
    for (;;) {
      const read = await this.readFeed();
      if (read === undefined || read < FEED_PAGE) return;
    }
  }

  /**
   * One page of the feed after the cursor: keeps the pets it names in `lastFeed`, and answers how many
   * changes it held, or undefined when it could not be read.
   */
  private async readFeed(): Promise<number | undefined> {
    const session = this.state.session;
    if (session === undefined) return undefined;
    const query = { limit: FEED_PAGE, ...(this.feedCursor === undefined ? {} : { after: this.feedCursor }) };
    const answer = await this.guard(() => session.send((c) => c.get('/inventory/changes', { params: { query } })));
    if (answer === undefined || !answer.ok || this.state.session !== session) return undefined;
    this.feedCursor = feedCursorOf(answer.headers.get('link')) ?? this.feedCursor;
    this.lastFeed = answer.data.map((change) => change.petId);
    return answer.data.length;
  }

  private scheduleFeed(): void {
    clearTimeout(this.feedTimer);
    this.feedTimer = setTimeout(() => void this.pollFeed(), FEED_EVERY_MS);
  }

  /**
   * Reads the changes since the last poll; when one touches a row shown, or may have moved a pet into
   * or out of a filter, the page is read again (one request, however many changes).
   */
  private async pollFeed(): Promise<void> {
    const session = this.state.session;
    if (session === undefined) return;
    try {
      if (!session.paused) {
        const read = await this.readFeed();
        const shown = new Set(this.state.rows.map((row) => row.petId));
        const filtered = this.state.filter.status !== '' || this.state.filter.maxAvailable !== '';
        if (read !== undefined && read > 0 && (filtered || this.lastFeed.some((id) => shown.has(id)))) {
          await this.reloadPage();
          this.update({ liveAt: new Date().toLocaleTimeString() });
        }
        await this.refreshLimits();
      }
    } finally {
      if (this.state.session === session) this.scheduleFeed();
    }
  }

  /** Runs a request; when the service cannot be reached, says so and answers undefined. */
  async guard<T>(request: () => Promise<T>): Promise<T | undefined> {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof Unreachable)) throw error;
      this.update({ tableNote: { kind: 'refused', text: error.message } });
      return undefined;
    }
  }
}
