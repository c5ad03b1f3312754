import type { components } from '../client/generated/openapi.js';
import type { ApiSession, Pause } from './api-session.js';

export type Item = components['schemas']['InventoryItem'];
/** A row of the table: an entry of a page, which carries its pet's name (and category, when it has one). */
export type Row = components['schemas']['NamedInventoryItem'];
export type Change = components['schemas']['StockChange'];
export type Limits = components['schemas']['RateLimitStatus'];
export type PetStatus = components['schemas']['PetStatus'];

/** The filters as the form holds them: a status ('' for every one), the low-stock bound's text, a search. */
export interface StockFilter {
  readonly status: PetStatus | '';
  readonly maxAvailable: string;
  /** Part of a name ('' for every pet). */
  readonly search: string;
}

/** A line the page says about a part of it: what went well, or a refusal in words. */
export interface Note {
  readonly kind: 'done' | 'refused' | 'conflict';
  readonly text: string;
}

/** The page's own last write on the open pet, which Undo puts back. */
export interface UndoableWrite {
  /** The quantity before the write: what Undo sets again. */
  readonly quantityBefore: number;
  /** The ETag the write left: Undo sends it as If-Match, so it is refused after anyone else's change. */
  readonly etagAfter: string;
  /** What it did, in words, for Undo's reason. */
  readonly what: string;
}

/** The pet open below the table: its numbers at the version the person saw, and its history. */
export interface PetPanel {
  readonly item: Item;
  /** Its name and category, from the row it was opened from (or a page read for it). */
  readonly name: string;
  readonly category?: string | undefined;
  /** The ETag of what is shown: every write sends it as If-Match. */
  readonly etag: string;
  /** Newest first, as the API lists it. */
  readonly history: readonly Change[];
  readonly note?: Note | undefined;
  /** Which write is out (its button is disabled meanwhile), if one is. */
  readonly sending?: 'set' | 'adjust' | 'undo' | undefined;
  /** The page's last write, while Undo may put it back. */
  readonly undo?: UndoableWrite | undefined;
  /** A write the API asked to hold: the person may send it again. */
  readonly retry?: (() => void) | undefined;
}

/** Everything the page shows; the views draw it, the controllers replace parts of it. */
export interface ConsoleState {
  readonly session?: ApiSession | undefined;
  readonly signInNote?: Note | undefined;
  readonly limits?: Limits | undefined;
  readonly canWrite: boolean;
  readonly filter: StockFilter;
  readonly rows: readonly Row[];
  /** The `after` of each page read so far, the current one last: Previous goes back along it. */
  readonly pageStarts: readonly (bigint | undefined)[];
  /** Where the next page starts (Link rel="next"), when there is one. */
  readonly nextAfter?: bigint | undefined;
  readonly tableNote?: Note | undefined;
  readonly pause?: Pause | undefined;
  readonly pet?: PetPanel | undefined;
  /** When the rows were last refreshed by someone else's change (shown, so that a reader knows). */
  readonly liveAt?: string | undefined;
  /** The CSV export under way or done: how many pets so far, and whether it is over. */
  readonly exportNote?: Note | undefined;
  readonly exporting?: boolean | undefined;
}

/** The state before signing in: every part named, so that a state spread over it keeps nothing of before. */
export const SIGNED_OUT: ConsoleState = {
  session: undefined,
  signInNote: undefined,
  limits: undefined,
  canWrite: false,
  filter: { status: '', maxAvailable: '', search: '' },
  rows: [],
  pageStarts: [undefined],
  nextAfter: undefined,
  tableNote: undefined,
  pause: undefined,
  pet: undefined,
  liveAt: undefined,
  exportNote: undefined,
  exporting: undefined,
};

/** How many entries a page of the table holds. */
export const PAGE_SIZE = 25;
