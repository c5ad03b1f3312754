import * as v from 'valibot';
import type { ListAllStockChanges } from '../../application/use-cases/list-all-stock-changes.js';
import type { NameKeys } from '../../application/use-cases/name-keys.js';
import { type FeedPosition, feedCursor, parseFeedCursor } from '../../domain/feed-cursor.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { API_BASE_PATH } from './api-guard.js';
import { sendError } from './error-response.js';
import { type RouteMiddleware, sendJson } from './http-context.js';
import { setNextLink } from './paging-link.js';
import { HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX, pageLimit } from './request-schemas.js';
import { stockChangeJson } from './stock-history-route.js';

export const FEED_PATH = `${API_BASE_PATH}/inventory/changes`;

const AFTER_MESSAGE = 'after must be a cursor of this feed, as a change listed it, or latest';

/** `after=latest`: the feed's head, so that a reader starts at what happens from now on. */
const LATEST = 'latest';

const FeedQuery = v.object({
  limit: v.optional(pageLimit(HISTORY_LIMIT_MAX)),
  after: v.optional(
    v.pipe(
      v.string(AFTER_MESSAGE),
      v.rawTransform<string, FeedPosition | typeof LATEST>(({ dataset, addIssue, NEVER }) => {
        if (dataset.value === LATEST) return LATEST;
        const position = parseFeedCursor(dataset.value);
        if (position !== undefined) return position;
        addIssue({ message: AFTER_MESSAGE });
        return NEVER;
      }),
    ),
  ),
});

interface FeedPage {
  readonly limit: number;
  readonly after?: FeedPosition | typeof LATEST;
}

function parseFeedQuery(query: Readonly<Record<string, unknown>>): Result<FeedPage, string> {
  const parsed = v.safeParse(FeedQuery, query);
  if (!parsed.success) return fail(parsed.issues[0]?.message ?? 'invalid query');
  const { limit = HISTORY_LIMIT_DEFAULT, after } = parsed.output;
  return ok(after === undefined ? { limit } : { limit, after });
}

/**
 * listAllStockChanges: the change feed, oldest first, each change with its cursor. `Link: rel="next"`
 * always names where to read on: after the page's last change, or where this page started when it is
 * empty, since a feed has no end (a poller follows it and comes back later). `after=latest` reads
 * after the feed's head: an empty page (or the few changes committed since the head was read) whose
 * link starts a reader there, without reading the history.
 */
export function listAllStockChanges(useCase: ListAllStockChanges, nameKeys: NameKeys): RouteMiddleware {
  return async (ctx) => {
    const page = parseFeedQuery(ctx.query);
    if (!page.ok) return sendError(ctx, 'invalid_query', page.error);
    const { limit } = page.value;
    const after = page.value.after === LATEST ? await useCase.head() : page.value.after;
    const listed = await useCase.execute(after === undefined ? { limit } : { limit, after });
    if (!listed.ok) return sendError(ctx, 'invalid_query', AFTER_MESSAGE);
    const entries = listed.value;
    const last = entries[entries.length - 1]?.position ?? after;
    setNextLink(ctx, FEED_PATH, last === undefined ? { limit } : { after: feedCursor(last), limit });
    const names = await nameKeys.execute(entries.map(({ change }) => change.actor));
    const items = entries.map(
      ({ change, position }) =>
        `${stockChangeJson(change, names.get(change.actor) ?? null).slice(0, -1)},"cursor":"${feedCursor(position)}"}`,
    );
    sendJson(ctx, `[${items.join(',')}]`);
  };
}
