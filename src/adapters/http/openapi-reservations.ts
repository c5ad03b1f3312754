import { QUANTITY_MAX } from '../../domain/quantity.js';
import { DEFAULT_TTL_SECONDS, RESERVATION_STATES, TTL_MAX_SECONDS } from '../../domain/reservation.js';
import type { JsonObject } from './openapi-components.js';
import {
  INTERNAL,
  jsonContent,
  LIMIT_HEADERS,
  PET_ID_PARAMETER,
  ref,
  responses,
  TOO_MANY,
  UNAUTHORIZED,
  UNAVAILABLE,
  WRITE_INTERNAL,
} from './openapi-responses.js';

/* The reservations: reserveInventory, getReservation, commitReservation and releaseReservation. */

const REPLAYABLE = [...LIMIT_HEADERS, 'Idempotent-Replayed'];
const RESERVATION = ref('schemas', 'Reservation');
const time = (description: string): JsonObject => ({ type: 'string', format: 'date-time', description });

export const RESERVATION_SCHEMAS: JsonObject = {
  Reservation: {
    type: 'object',
    required: ['id', 'petId', 'quantity', 'state', 'createdAt', 'expiresAt'],
    additionalProperties: false,
    description: 'Stock of one pet set aside for a checkout, until it is committed, released, or expires.',
    properties: {
      id: { type: 'string', pattern: '^res_[0-9a-f]{32}$', description: 'Id of the reservation.' },
      petId: { type: 'integer', format: 'int64', description: 'Id of the pet.' },
      quantity: { type: 'integer', format: 'int32', minimum: 1, maximum: QUANTITY_MAX },
      state: {
        type: 'string',
        enum: [...RESERVATION_STATES],
        description:
          'held: sets its quantity aside until expiresAt; committed: taken from the stock on hand; released: ' +
          'given back; expired: its time was up while held (from expiresAt on, whether or not anything touched it).',
      },
      createdAt: time('When it was made, in RFC 3339 UTC with milliseconds.'),
      expiresAt: time('When a held reservation stops counting.'),
    },
  },
  ReservationRequest: {
    type: 'object',
    required: ['quantity'],
    additionalProperties: false,
    description: 'An unknown field is refused.',
    properties: {
      quantity: {
        type: 'integer',
        format: 'int32',
        minimum: 1,
        maximum: QUANTITY_MAX,
        description: 'How many to hold.',
      },
      ttlSeconds: {
        type: 'integer',
        format: 'int32',
        minimum: 1,
        maximum: TTL_MAX_SECONDS,
        default: DEFAULT_TTL_SECONDS,
        description: 'How long to hold them, in seconds.',
      },
    },
  },
};

const RESERVATION_ID_PARAMETER: JsonObject = {
  name: 'reservationId',
  in: 'path',
  required: true,
  description: 'Id of the reservation (res_ and 32 hexadecimal digits).',
  schema: { type: 'string' },
};

const COMMON = {
  unauthorized: UNAUTHORIZED,
  rate_limited: TOO_MANY,
  internal_error: WRITE_INTERNAL,
  unavailable: UNAVAILABLE,
};

const KEYED_CHECKS = {
  invalid_idempotency_key: {
    description: 'invalid_idempotency_key: Idempotency-Key is not 1 to 255 visible ASCII characters.',
  },
  idempotency_key_reused: {
    description:
      'idempotency_key_reused: this API key used the Idempotency-Key on another request (another method, path ' +
      'or body) within the last 24 hours.',
  },
};

const IN_USE =
  'idempotency_key_in_use: the first request with this Idempotency-Key is still being processed; retry once ' +
  'it has been answered.';

const NOT_FOUND = { description: 'reservation_not_found: no reservation has this id.', headers: REPLAYABLE };

/** What a key may hold, as the service is configured: the document states its limits. */
export interface HoldLimitsText {
  readonly perKey: number;
  readonly ttlSeconds: number;
}

export const reserveInventory = (bodyLimitBytes: number, holds: HoldLimitsText): JsonObject => ({
  operationId: 'reserveInventory',
  tags: ['inventory'],
  summary: 'Hold some of a pet’s available stock for a checkout',
  description:
    'Sets quantity aside from what is available (quantity - reserved) until it is committed, released, or ' +
    'ttlSeconds pass; the stock on hand does not change. Concurrent reservations never hold more than is ' +
    `available. One API key holds at most ${holds.perKey} reservations at once, each for at most ` +
    `${holds.ttlSeconds} seconds (the service's settings); a key that is revoked, or whose roll's grace ends, ` +
    'has its reservations released. If-Match (optional, never required) makes it conditional on the entry’s ' +
    'ETag; a reservation moves the entry’s version. Idempotency-Key as on updateInventory: the outcomes 201, ' +
    '400 hold_ttl_exceeded, 404, 409 and 412 are stored.',
  parameters: [PET_ID_PARAMETER, ref('parameters', 'IfMatch'), ref('parameters', 'IdempotencyKey')],
  requestBody: { required: true, content: jsonContent(ref('schemas', 'ReservationRequest')) },
  responses: responses({
    created: {
      description: 'The reservation, held; Location names it.',
      headers: [...REPLAYABLE, 'Location'],
      schema: RESERVATION,
    },
    invalid_body: {
      description:
        'invalid_pet_id: petId is not a signed 64-bit integer; invalid_body: the body is empty, not JSON, not ' +
        `an object, lacks quantity, quantity is not an integer from 1 to ${QUANTITY_MAX}, ttlSeconds is not an ` +
        `integer from 1 to ${TTL_MAX_SECONDS}, or it has another field; invalid_idempotency_key; invalid_if_match; ` +
        `hold_ttl_exceeded: ttlSeconds is more than the ${holds.ttlSeconds} a reservation may hold here (nothing ` +
        'was held).',
    },
    pet_not_found: { description: 'pet_not_found: no pet has this id.', headers: REPLAYABLE },
    insufficient_stock: {
      description:
        'insufficient_stock: quantity is more than is available; nothing was held. hold_limit_exceeded: this ' +
        `API key already holds ${holds.perKey} reservations, the most one key may hold at once; nothing was ` +
        `held (commit or release some first). Or ${IN_USE}`,
      headers: REPLAYABLE,
    },
    precondition_failed: {
      description: 'precondition_failed: the entry is not at a version If-Match names. The ETag is the current one.',
      headers: [...REPLAYABLE, 'ETag'],
    },
    payload_too_large: { description: `payload_too_large: the body is larger than ${bodyLimitBytes} bytes.` },
    unsupported_media_type: { description: 'unsupported_media_type: the body is not application/json.' },
    idempotency_key_reused: KEYED_CHECKS.idempotency_key_reused,
    ...COMMON,
  }),
});

export const getReservation: JsonObject = {
  operationId: 'getReservation',
  tags: ['inventory'],
  summary: 'Read a reservation',
  description: 'The reservation as it stands now: a held one whose time is up is expired.',
  parameters: [RESERVATION_ID_PARAMETER],
  responses: responses({
    ok: { description: 'The reservation.', schema: RESERVATION },
    reservation_not_found: { description: NOT_FOUND.description },
    ...COMMON,
    internal_error: INTERNAL,
  }),
};

const settleAnswers = (conflict: string) =>
  responses({
    ok: {
      description: 'The reservation as the request left it (or found it, for a repeat).',
      headers: REPLAYABLE,
      schema: RESERVATION,
    },
    invalid_idempotency_key: KEYED_CHECKS.invalid_idempotency_key,
    reservation_not_found: NOT_FOUND,
    reservation_committed: { description: `${conflict} Or ${IN_USE}`, headers: REPLAYABLE },
    idempotency_key_reused: KEYED_CHECKS.idempotency_key_reused,
    ...COMMON,
  });

export const commitReservation: JsonObject = {
  operationId: 'commitReservation',
  tags: ['inventory'],
  summary: 'Take a held reservation from the stock on hand',
  description:
    'Lowers the stock on hand and what is reserved by the reservation’s quantity in one step, moves the status ' +
    'by the stock rule, and records a history entry of kind reservation_commit. A repeat answers the same 200. ' +
    'Any key with inventory:write may commit any reservation. Idempotency-Key as on updateInventory.',
  parameters: [RESERVATION_ID_PARAMETER, ref('parameters', 'IdempotencyKey')],
  responses: settleAnswers(
    'reservation_released / reservation_expired: the reservation was released, or expired, before; nothing was written.',
  ),
};

export const releaseReservation: JsonObject = {
  operationId: 'releaseReservation',
  tags: ['inventory'],
  summary: 'Give a held reservation back',
  description:
    'Gives the reservation’s quantity back to what is available. A repeat answers the same 200, and so does ' +
    'the release of an expired reservation (its stock is free already). Any key with inventory:write may ' +
    'release any reservation. Idempotency-Key as on updateInventory.',
  parameters: [RESERVATION_ID_PARAMETER, ref('parameters', 'IdempotencyKey')],
  responses: settleAnswers('reservation_committed: the reservation was committed; nothing was written.'),
};
