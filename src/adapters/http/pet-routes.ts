import type Router from '@koa/router';
import type { Clock } from '../../application/ports/clock.js';
import type { GetPet } from '../../application/use-cases/get-pet.js';
import { API_BASE_PATH } from './api-guard.js';
import { sendError } from './error-response.js';
import { type HttpState, type RoutedContext, type RouteMiddleware, sendJson } from './http-context.js';
import { petJson } from './json-writer.js';
import { parsePetIdParam } from './request-schemas.js';

/** When getPetById was deprecated and when it goes, and where a client reads about it. */
export interface DeprecationSchedule {
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
  /** A document that describes the deprecation and the sunset (the OpenAPI document). */
  readonly infoUrl: string;
}

export interface PetRouteDeps {
  readonly getPet: GetPet;
  readonly clock: Clock;
}

/** The three deprecation headers, computed once: they do not change while the service runs. */
function deprecationHeaders(schedule: DeprecationSchedule): Readonly<Record<string, string>> {
  return {
    // RFC 9745: a structured-field date, Unix seconds.
    Deprecation: `@${Math.floor(schedule.deprecatedAt.getTime() / 1000)}`,
    // RFC 8594: an HTTP-date (IMF-fixdate).
    Sunset: schedule.sunsetAt.toUTCString(),
    Link: `<${schedule.infoUrl}>; rel="deprecation"; type="application/json", <${schedule.infoUrl}>; rel="sunset"; type="application/json"`,
  };
}

function getPetById(deps: PetRouteDeps, schedule: DeprecationSchedule): RouteMiddleware {
  const headers = deprecationHeaders(schedule);
  const sunsetAtMs = schedule.sunsetAt.getTime();
  const goneMessage = `getPetById was retired on ${headers.Sunset}`;
  return async (ctx) => {
    ctx.set(headers);
    if (deps.clock.nowMs() >= sunsetAtMs) return sendError(ctx, 'gone', goneMessage);
    const petId = parsePetIdParam(ctx.params.petId);
    if (!petId.ok) return sendError(ctx, 'invalid_pet_id', petId.error);
    const pet = await deps.getPet.execute({ petId: petId.value });
    if (!pet.ok) return sendError(ctx, pet.error.code, pet.error.message);
    sendJson(ctx, petJson(pet.value));
  };
}

/** getPetById: deprecated, with its Deprecation, Sunset and Link headers; 410 from the sunset on. */
export function addPetRoutes(
  router: Router<HttpState, RoutedContext>,
  deps: PetRouteDeps,
  schedule: DeprecationSchedule,
): void {
  router.get(`${API_BASE_PATH}/pets/:petId`, getPetById(deps, schedule));
}
