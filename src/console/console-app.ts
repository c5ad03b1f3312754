import { ApiSession, refusalText, SessionEnded, Unreachable } from './api-session.js';
import { type ConsoleState, PAGE_SIZE, type Row, SIGNED_OUT, type StockFilter } from './console-state.js';
import { exportCsv } from './csv-export.js';
import { PetActions } from './pet-actions.js';
import { KEY_REFUSED, type KeyRefusal } from './plain-words.js';

/** How often the page reads the change feed for rows someone else changed. */
const FEED_EVERY_MS = 2_000;
/** The longest wait between two reads of the feed while they keep failing. */
const FEED_BACKOFF_MAX_MS = 60_000;
/** The feed's page: the most changes one poll reads. */
const FEED_PAGE = 1_000;

/** A key as fetch can send it in a header: printable ASCII, no space. */
const SENDABLE_KEY = /^[\x21-\x7e]+$/;

/** The `after=` of a Link rel="next" header, when it has one. */
function nextAfterOf(link: string | null): bigint | undefined {
  const after = link === null ? undefined : /[?&]after=(-?[0-9]+)/.exec(link)?.[1];
  return after === undefined ? undefined : BigInt(after);
}

/** The `after=` cursor of the feed's Link rel="next" header. */
const feedCursorOf = (link: string | null): string | undefined =>
  link === null ? undefined : (/[?&]after=([^&>]+)/.exec(link)?.[1] ?? undefined);

/**
 * The page's behaviour: signing in and out, the table's pages, filters and search, the change feed,
 * and the key's limits. It holds the state and hands every new state to `draw`; the pet's own actions
 * are in PetActions.
 */
export class ConsoleApp {
  state: ConsoleState = SIGNED_OUT;
  readonly pet: PetActions;
  private feedCursor: string | undefined;
  private feedTimer: ReturnType<typeof setTimeout> | undefined;
  /** Reads of the feed that failed in a row: each doubles the wait before the next. */
  private feedFailures = 0;
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
    if (key === '') return this.refuseSignIn('Enter an API key to sign in.');
    if (!SENDABLE_KEY.test(key)) return this.refuseSignIn(KEY_REFUSED.unauthorized);
    this.update({ signInNote: undefined });
    let refused: KeyRefusal | undefined;
    const session = new ApiSession(
      key,
      (pause) => this.update({ pause }),
      (why) => {
        refused = why;
        this.keyRefused(session, why);
      },
    );
    let answer: Awaited<ReturnType<typeof session.send<unknown>>> | undefined;
    try {
      answer = await session.send((c) => c.get('/rate_limit'));
    } catch (error) {
      if (error instanceof Unreachable) return this.refuseSignIn(error.message);
      // Refused at sign-in: said on the sign-in form, like every other failure to sign in.
      if (error instanceof SessionEnded) return this.refuseSignIn(KEY_REFUSED[refused ?? 'unauthorized']);
      throw error;
    }
    if (!answer.ok) return this.refuseSignIn(refusalText(answer));
    const limits = answer.data as NonNullable<ConsoleState['limits']>;
    session.remember();
    this.update({ ...SIGNED_OUT, session, limits, canWrite: limits.key.scopes.includes('inventory:write') });
    await this.loadPage(undefined, [undefined]);
    await this.startFeedAtHead();
    this.scheduleFeed();
  }

  private refuseSignIn(text: string): void {
    ApiSession.forget();
    this.update({ ...SIGNED_OUT, signInNote: { kind: 'refused', text: `Not signed in. ${text}` } });
  }

  /** Ends the session: what is in flight is aborted, every timer stops, and the key is forgotten. */
  signOut(): void {
    this.stop();
    this.update({ ...SIGNED_OUT, signInNote: { kind: 'done', text: 'Signed out. The key is forgotten.' } });
  }

  /** The API refused the key (revoked, replaced or expired): stop everything, and say why. */
  private keyRefused(session: ApiSession, why: KeyRefusal): void {
    if (this.state.session !== session) return;
    this.stop();
    this.update({ ...SIGNED_OUT, signInNote: { kind: 'refused', text: `Signed out. ${KEY_REFUSED[why]}` } });
  }

  private stop(): void {
    this.state.session?.end();
    ApiSession.forget();
    clearTimeout(this.feedTimer);
    this.feedTimer = undefined;
    this.feedCursor = undefined;
    this.feedFailures = 0;
  }

  async applyFilter(filter: StockFilter): Promise<void> {
    const max = filter.maxAvailable.trim();
    if (max !== '' && !/^(0|[1-9][0-9]{0,9})$/.test(max)) {
      return this.update({ tableNote: { kind: 'refused', text: 'Low stock must be a whole number from 0.' } });
    }
    const search = filter.search.trim();
    this.update({ filter: { status: filter.status, maxAvailable: max, search } });
    // A number is a pet's number too: it opens that pet, as well as searching the names.
    if (/^-?[0-9]{1,19}$/.test(search)) await this.pet.open(search);
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

  /** The query of the list as the filters stand: status, low stock and search. */
  listQuery(): { status?: ('available' | 'pending' | 'sold')[]; maxAvailable?: number; q?: string } {
    const { status, maxAvailable, search } = this.state.filter;
    return {
      ...(status === '' ? {} : { status: [status] }),
      ...(maxAvailable === '' ? {} : { maxAvailable: Number(maxAvailable) }),
      ...(search === '' ? {} : { q: search }),
    };
  }

  private async loadPage(after: bigint | undefined, pageStarts: readonly (bigint | undefined)[]): Promise<void> {
    const session = this.state.session;
    if (session === undefined) return;
    const query = { limit: PAGE_SIZE, ...(after === undefined ? {} : { after }), ...this.listQuery() };
    const answer = await this.guard(() => session.send((c) => c.get('/inventory', { params: { query } })));
    if (answer === undefined || this.state.session !== session) return;
    if (!answer.ok) return this.update({ tableNote: { kind: 'refused', text: refusalText(answer) } });
    this.update({
      rows: answer.data as Row[],
      pageStarts,
      nextAfter: nextAfterOf(answer.headers.get('link')),
      tableNote: undefined,
    });
  }

  /** Downloads every page of the list as the filters select it, as CSV, saying how far it got. */
  async exportCsv(): Promise<void> {
    const session = this.state.session;
    if (session === undefined || this.state.exporting === true) return;
    this.update({ exporting: true, exportNote: { kind: 'done', text: 'Exporting…' } });
    const note = await exportCsv(session, this.listQuery(), (pets) => {
      if (this.state.session === session)
        this.update({ exportNote: { kind: 'done', text: `Exporting: ${pets} pets so far…` } });
    });
    if (this.state.session === session) this.update({ exporting: false, exportNote: note });
  }

  /** Reads the key's limits again: GET /v1/rate_limit is never counted against them. */
  async refreshLimits(): Promise<void> {
    const session = this.state.session;
    if (session === undefined || session.paused) return;
    const answer = await this.guard(() => session.send((c) => c.get('/rate_limit')));
    if (answer?.ok === true && this.state.session === session) this.update({ limits: answer.data });
  }

  /**
   * Starts the feed at its head: one request, however long the history. The rows shown were read
   * before it, so a change made between the two shows at the next poll of the page, never lost.
   */
  private async startFeedAtHead(): Promise<void> {
    this.feedCursor = 'latest';
    await this.readFeed();
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
    if (this.state.session === undefined || this.state.session.ended) return;
    const wait = Math.min(FEED_BACKOFF_MAX_MS, FEED_EVERY_MS * 2 ** this.feedFailures);
    this.feedTimer = setTimeout(() => void this.pollFeed(), wait);
  }

  /**
   * Reads the changes since the last poll; when one touches a row shown, or may have moved a pet into
   * or out of a filter, the page is read again (one request, however many changes); when one touches
   * the open pet, its numbers and history are read again too.
   */
  private async pollFeed(): Promise<void> {
    const session = this.state.session;
    if (session === undefined || session.ended) return;
    try {
      if (!session.paused) {
        const read = await this.readFeed();
        this.feedFailures = read === undefined ? this.feedFailures + 1 : 0;
        const shown = new Set(this.state.rows.map((row) => row.petId));
        const { status, maxAvailable, search } = this.state.filter;
        const filtered = status !== '' || maxAvailable !== '' || search !== '';
        if (read !== undefined && read > 0 && (filtered || this.lastFeed.some((id) => shown.has(id)))) {
          await this.reloadPage();
          this.update({ liveAt: new Date().toLocaleTimeString() });
        }
        const open = this.state.pet?.item.petId;
        if (read !== undefined && open !== undefined && this.lastFeed.includes(open)) await this.pet.refresh();
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
      if (error instanceof SessionEnded) return undefined;
      if (!(error instanceof Unreachable)) throw error;
      this.update({ tableNote: { kind: 'refused', text: error.message } });
      return undefined;
    }
  }
}
