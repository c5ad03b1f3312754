import type { ListStockChanges } from '../../application/use-cases/list-stock-changes.js';
import type { NameKeys } from '../../application/use-cases/name-keys.js';
import type { StockChange } from '../../domain/stock-change.js';
import { API_BASE_PATH } from './api-guard.js';
import { sendError } from './error-response.js';
import { type RouteMiddleware, sendJson } from './http-context.js';
import { setNextLink } from './paging-link.js';
import { parseHistoryQuery, parsePetIdParam } from './request-schemas.js';

/**
 * One change as the API shows it. Ids are bigints written by the template literal, so their digits are
 * exact over the whole int64 range; the kind is a closed enum; the key id and the reason (or null) are
 * free text and go through JSON.stringify; the time is RFC 3339 in UTC with milliseconds. `keyName`
 * is the name of the key that made it, as the key is named now (null: none).
 */
export const stockChangeJson = (change: StockChange, keyName: string | null): string =>
  `{"id":${change.id},"petId":${change.after.petId},"kind":"${change.kind}",` +
  `"quantityBefore":${change.before.quantity},"quantityAfter":${change.after.quantity},` +
  `"statusBefore":"${change.before.status}","statusAfter":"${change.after.status}",` +
  `"keyId":${JSON.stringify(change.actor)},"keyName":${JSON.stringify(keyName)},"at":"${new Date(change.atMs).toISOString()}",` +
  `"reason":${JSON.stringify(change.reason)}}`;

/**
 * listStockChanges: a page of one pet's stock history, newest first. One change more than the page is
 * read, so that `Link: rel="next"` is sent exactly when an older change exists.
 */
export function listStockChanges(useCase: ListStockChanges, nameKeys: NameKeys): RouteMiddleware {
  return async (ctx) => {
    const petId = parsePetIdParam(ctx.params.petId);
    if (!petId.ok) return sendError(ctx, 'invalid_pet_id', petId.error);
    const page = parseHistoryQuery(ctx.query);
    if (!page.ok) return sendError(ctx, 'invalid_query', page.error);
    const { limit, before } = page.value;
    const found = await useCase.execute({
      petId: petId.value,
      limit: limit + 1,
      ...(before === undefined ? {} : { before }),
    });
    if (!found.ok) return sendError(ctx, found.error.code, found.error.message);
    const changes = found.value.slice(0, limit);
    const last = changes[changes.length - 1];
    if (found.value.length > limit && last !== undefined) {
      setNextLink(ctx, `${API_BASE_PATH}/inventory/${petId.value}/changes`, { before: last.id, limit });
    }
    const names = await nameKeys.execute(changes.map((change) => change.actor));
    sendJson(ctx, `[${changes.map((change) => stockChangeJson(change, names.get(change.actor) ?? null)).join(',')}]`);
  };
}
