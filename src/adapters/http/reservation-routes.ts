import type Router from '@koa/router';
import * as v from 'valibot';
import type { GetReservation } from '../../application/use-cases/get-reservation.js';
import type { ReserveResult, ReserveStock } from '../../application/use-cases/reserve-stock.js';
import type { CommitReservation, ReleaseReservation } from '../../application/use-cases/settle-reservation.js';
import { QUANTITY_MAX, type Quantity } from '../../domain/quantity.js';
import { isTtlSeconds, TTL_MAX_SECONDS } from '../../domain/reservation.js';
import type { Result } from '../../domain/result.js';
import { API_BASE_PATH } from './api-guard.js';
import { versionTag } from './entity-tags.js';
import { sendError } from './error-response.js';
import { CREATED_STATUS } from './error-table.js';
import {
  type HttpState,
  type RouteContext,
  type RoutedContext,
  type RouteMiddleware,
  sendJson,
} from './http-context.js';
import { jsonBodyOf, readJsonBody, requireJsonBody } from './json-body.js';
import { reservationJson } from './json-writer.js';
import { integerField, parseBody, parsePetIdParam } from './request-schemas.js';
import { bodyObject } from './stock-request-schemas.js';
import { conditionOf, markReplay, writeHeadersOf } from './stock-write-request.js';

const QUANTITY_MESSAGE = `quantity must be an integer from 1 to ${QUANTITY_MAX}`;
const TTL_MESSAGE = `ttlSeconds must be an integer from 1 to ${TTL_MAX_SECONDS}`;

const ReservationRequest = bodyObject(
  {
    quantity: integerField((value) => value >= 1 && value <= QUANTITY_MAX, QUANTITY_MESSAGE),
    ttlSeconds: v.optional(integerField(isTtlSeconds, TTL_MESSAGE)),
  },
  'quantity and ttlSeconds',
  'quantity is required',
);

/** The body of reserveInventory. */
export interface ReservationBody {
  readonly quantity: Quantity;
  readonly ttlSeconds?: number;
}

/** A parsed body of reserveInventory, or the message of a 400 `invalid_body`. */
export const parseReservationRequest = (body: unknown): Result<ReservationBody, string> =>
  parseBody(ReservationRequest, body) as Result<ReservationBody, string>;

const reservationPath = (id: string): string => `${API_BASE_PATH}/reservations/${id}`;

/**
 * Answers what a reservation write decided, first time or replayed alike: the reservation (a new one
 * with 201 and its Location), or the refusal (a 412 with the entry's current ETag).
 */
function sendReservationWrite(ctx: RouteContext, written: ReserveResult, created: boolean): void {
  if (written.ok) {
    const { reservation, replayed } = written.value;
    markReplay(ctx, replayed);
    if (created) {
      ctx.status = CREATED_STATUS;
      ctx.res.setHeader('Location', reservationPath(reservation.id));
    }
    sendJson(ctx, reservationJson(reservation));
    return;
  }
  const error = written.error;
  if ('refusal' in error) {
    markReplay(ctx, error.replayed);
    if (error.refusal.code === 'precondition_failed') {
      ctx.res.setHeader('ETag', versionTag(error.refusal.currentVersion));
    }
  }
  sendError(ctx, error.code, error.message);
}

/**
 * reserveInventory: checks the request whole (petId, body, Idempotency-Key, If-Match) before the write,
 * so that a 400 is never stored as a key's outcome. If-Match is taken, never required: a reservation
 * overwrites no stock level, and is judged against what is available when it is made.
 */
function reserveInventory(useCase: ReserveStock): RouteMiddleware {
  return async (ctx) => {
    const petId = parsePetIdParam(ctx.params.petId);
    if (!petId.ok) return sendError(ctx, 'invalid_pet_id', petId.error);
    const body = jsonBodyOf(ctx);
    if (!body.ok) return sendError(ctx, 'invalid_body', body.error);
    const fields = parseReservationRequest(body.value);
    if (!fields.ok) return sendError(ctx, 'invalid_body', fields.error);
    const headers = writeHeadersOf(ctx, `${API_BASE_PATH}/inventory/${petId.value}/reservations`);
    if (headers === undefined) return;
    const condition = conditionOf(ctx, false);
    if (condition === undefined) return;
    const written = await useCase.execute({ petId: petId.value, ...fields.value, ...headers, ...condition });
    sendReservationWrite(ctx, written, true);
  };
}

/** commitReservation and releaseReservation: the reservation named by the path, Idempotency-Key as on PATCH. */
function settleReservation(useCase: CommitReservation | ReleaseReservation, subpath: string): RouteMiddleware {
  return async (ctx) => {
    const reservationId = String(ctx.params.reservationId);
    const headers = writeHeadersOf(ctx, `${reservationPath(reservationId)}${subpath}`);
    if (headers === undefined) return;
    sendReservationWrite(ctx, await useCase.execute({ reservationId, ...headers }), false);
  };
}

function getReservation(useCase: GetReservation): RouteMiddleware {
  return async (ctx) => {
    const found = await useCase.execute({ reservationId: String(ctx.params.reservationId) });
    if (!found.ok) return sendError(ctx, found.error.code, found.error.message);
    sendJson(ctx, reservationJson(found.value));
  };
}

/** The use cases of reservations. */
export interface ReservationRouteDeps {
  readonly reserveStock: ReserveStock;
  readonly getReservation: GetReservation;
  readonly commitReservation: CommitReservation;
  readonly releaseReservation: ReleaseReservation;
}

/** reserveInventory, getReservation, commitReservation and releaseReservation. */
export function addReservationRoutes(
  router: Router<HttpState, RoutedContext>,
  deps: ReservationRouteDeps,
  options: { readonly bodyLimitBytes: number },
): void {
  router.post(
    `${API_BASE_PATH}/inventory/:petId/reservations`,
    requireJsonBody,
    readJsonBody(options.bodyLimitBytes),
    reserveInventory(deps.reserveStock),
  );
  router.get(`${API_BASE_PATH}/reservations/:reservationId`, getReservation(deps.getReservation));
  router.post(
    `${API_BASE_PATH}/reservations/:reservationId/commit`,
    settleReservation(deps.commitReservation, '/commit'),
  );
  router.delete(`${API_BASE_PATH}/reservations/:reservationId`, settleReservation(deps.releaseReservation, ''));
}
