/**
 * A typed client of the pet store inventory API, for TypeScript users: `petstore-inventory/client`.
 * Its types are generated from the OpenAPI document the service serves (`npm run generate`), and every
 * int64 (pet ids, order ids) is a bigint both ways, never rounded. It speaks through `fetch`, and reads
 * JSON with `lossless-json` (`npm install lossless-json`); without it, importing this subpath throws a
 * MissingPeerError that says so.
 *
 * @packageDocumentation
 */
import { requirePeers } from '../adapters/shared/peer-packages.js';

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

await requirePeers('petstore-inventory/client', ['lossless-json']);
const client = await import('./petstore-client.js');

/**
 * Makes a client. Each call names a path of the document and its method, takes the parameters and body
 * the document gives it (int64 values as bigints), and resolves to the answer with its data parsed
 * exactly: ids come back as bigints. Failures the API answers (4xx, 5xx) resolve too, with the Error body;
 * only a failure to reach the service rejects.
 */
export const createPetstoreClient = client.createPetstoreClient;
