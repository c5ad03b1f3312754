/**
 * A typed client of the pet store inventory API, for TypeScript users: `petstore-inventory/client`.
 * Its types are generated from the OpenAPI document the service serves (`npm run generate`), and every
 * int64 (pet ids, order ids) is a bigint both ways, never rounded.
 *
 * @packageDocumentation
 */

export type { components, operations, paths } from './generated/openapi.js';
export type {
  ApiError,
  ApiResult,
  Method,
  Operation,
  PathsWith,
  PetstoreClient,
  PetstoreClientOptions,
  RequestOptions,
  SuccessData,
} from './petstore-client.js';
export { createPetstoreClient } from './petstore-client.js';
