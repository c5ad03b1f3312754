import type { components } from '../client/generated/openapi.js';
import type { ApiSession, Pause } from './api-session.js';

export type Item = components['schemas']['InventoryItem'];
export type Change = components['schemas']['StockChange'];
export type Limits = components['schemas']['RateLimitStatus'];
export type PetStatus = components['schemas']['PetStatus'];

/** The filters as the form holds them: a status ('' for every one) and the low-stock bound's text. */
export interface StockFilter {
  readonly status: PetStatus | '';
  readonly maxAvailable: string;
}

/** A line the page says about a part of it: what went well, or a refusal in words. */
export interface Note {
  readonly kind: 'done' | 'refused' | 'conflict';
  readonly text: string;
}

/** The pet open below the table: its numbers at the version the person saw, and its history. */
export interface PetPanel {
  readonly item: Item;
  /** The ETag of what is shown: every write sends it as If-Match. */
  readonly etag: string;
  /** Newest first, as the API lists it. */
  readonly history: readonly Change[];
  readonly note?: Note | undefined;
}

/** Everything the page shows; the views draw it, the controllers replace parts of it. */
export interface ConsoleState {
  readonly session?: ApiSession | undefined;
  readonly signInNote?: Note | undefined;
  readonly limits?: Limits | undefined;
  readonly canWrite: boolean;
  readonly filter: StockFilter;
  readonly rows: readonly Item[];
  /** The `after` of each page read so far, the current one last: Previous goes back along it. */
  readonly pageStarts: readonly (bigint | undefined)[];
  /** Where the next page starts (Link rel="next"), when there is one. */
  readonly nextAfter?: bigint | undefined;
  readonly tableNote?: Note | undefined;
  readonly pause?: Pause | undefined;
  readonly pet?: PetPanel | undefined;
  /** When the rows were last refreshed by someone else's change (shown, so that a reader knows). */
  readonly liveAt?: string | undefined;
}

/** The state before signing in: every part named, so that a state spread over it keeps nothing of before. */
export const SIGNED_OUT: ConsoleState = {
  session: undefined,
  signInNote: undefined,
  limits: undefined,
  canWrite: false,
  filter: { status: '', maxAvailable: '' },
  rows: [],
  pageStarts: [undefined],
  nextAfter: undefined,
  tableNote: undefined,
  pause: undefined,
  pet: undefined,
  liveAt: undefined,
};

/** How many entries a page of the table holds. */
export const PAGE_SIZE = 25;
