import type { components, paths } from './generated/openapi.js';
import { parseBody, stringifyBody } from './lossless-body.js';

/** The Error body every failed request answers with. */
export type ApiError = components['schemas']['Error'];

/** The API's methods, lowercase as in the document. */
export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The paths (relative to the base URL, e.g. `/inventory/{petId}`) that have `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

/** The operation at `P` under `M`. */
export type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206 | 304;
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : undefined;

/** What a successful answer of `O` holds: the JSON of its 2xx (or 304) responses. */
export type SuccessData<O> = O extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: JsonOf<R[S]> }[keyof R & SuccessStatus]
  : never;

/** The parameters of `O` that it has (path, query, header), each as the document types them. */
type ParamsOf<O> = O extends { parameters: infer X }
  ? { [K in keyof X as [Exclude<X[K], undefined>] extends [never] ? never : K]: X[K] }
  : Record<never, never>;

type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];

type ParamsInit<O> = keyof ParamsOf<O> extends never
  ? { readonly params?: undefined }
  : [RequiredKeys<ParamsOf<O>>] extends [never]
    ? { readonly params?: ParamsOf<O> }
    : { readonly params: ParamsOf<O> };

type BodyInit<O> = O extends { requestBody: { content: { 'application/json': infer B } } }
  ? { readonly body: B }
  : { readonly body?: undefined };

/** What one request takes besides its path: its parameters and body as typed by the document. */
export type RequestOptions<O> = ParamsInit<O> &
  BodyInit<O> & {
    /** Extra headers for this request. */
    readonly headers?: Readonly<Record<string, string>>;
    readonly signal?: AbortSignal;
  };

type Args<O> = [RequiredKeys<RequestOptions<O>>] extends [never]
  ? [options?: RequestOptions<O>]
  : [options: RequestOptions<O>];

/** An answer: the data of a success, or the Error body of a failure; the status and headers either way. */
export type ApiResult<T> =
  | { readonly ok: true; readonly status: number; readonly headers: Headers; readonly data: T }
  | { readonly ok: false; readonly status: number; readonly headers: Headers; readonly error: ApiError };

/** How to reach the service. */
export interface PetstoreClientOptions {
  /** The API's base URL, ending in /v1: e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** The API key (`psk_...`), sent as `Authorization: Bearer <key>`; none for the open document. */
  readonly apiKey?: string;
  /** The fetch to use; the global one by default. */
  readonly fetch?: typeof fetch;
}

/** A client of the pet store API, typed by its OpenAPI document, exact for every int64. */
export interface PetstoreClient {
  get<P extends PathsWith<'get'>>(
    path: P,
    ...args: Args<Operation<P, 'get'>>
  ): Promise<ApiResult<SuccessData<Operation<P, 'get'>>>>;
  patch<P extends PathsWith<'patch'>>(
    path: P,
    ...args: Args<Operation<P, 'patch'>>
  ): Promise<ApiResult<SuccessData<Operation<P, 'patch'>>>>;
  post<P extends PathsWith<'post'>>(
    path: P,
    ...args: Args<Operation<P, 'post'>>
  ): Promise<ApiResult<SuccessData<Operation<P, 'post'>>>>;
}

interface LooseParams {
  readonly path?: Readonly<Record<string, unknown>>;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly header?: Readonly<Record<string, unknown>>;
}

interface LooseOptions {
  readonly params?: LooseParams;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** A path parameter, query value or header: a bigint as its digits, like every other value. */
const text = (value: unknown): string => (typeof value === 'string' ? value : String(value));

function urlOf(baseUrl: string, path: string, params: LooseParams | undefined): string {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params?.path?.[name];
    if (value === undefined) throw new TypeError(`the path parameter ${name} of ${path} is missing`);
    return encodeURIComponent(text(value));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params?.query ?? {})) {
    if (value === undefined) continue;
    // Every array parameter of the document is `style: form, explode: false`: one value, commas between.
    query.append(name, Array.isArray(value) ? value.map(text).join(',') : text(value));
  }
  const search = query.size === 0 ? '' : `?${query}`;
  return `${baseUrl.replace(/\/+$/, '')}${filled}${search}`;
}

async function answerOf(response: Response): Promise<ApiResult<unknown>> {
  const body = await response.text();
  const json = /^application\/json\b/.test(response.headers.get('content-type') ?? '');
  const value = json && body !== '' ? parseBody(body) : undefined;
  const { status, headers } = response;
  if (response.ok || status === 304) return { ok: true, status, headers, data: value };
  if (value === undefined) throw new Error(`the service answered ${status} without the Error body`);
  return { ok: false, status, headers, error: value as ApiError };
}

/**
 * Makes a client. Each call names a path of the document and its method, takes the parameters and body
 * the document gives it (int64 values as bigints), and resolves to the answer with its data parsed
 * exactly: ids come back as bigints. Failures the API answers (4xx, 5xx) resolve too, with the Error body;
 * only a failure to reach the service rejects.
 */
export function createPetstoreClient(options: PetstoreClientOptions): PetstoreClient {
  const send = options.fetch ?? fetch;
  const request = async (method: Method, path: string, loose: LooseOptions = {}): Promise<ApiResult<unknown>> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
    for (const [name, value] of Object.entries(loose.params?.header ?? {})) {
      if (value !== undefined) headers[name] = text(value);
    }
    if (loose.body !== undefined) headers['content-type'] = 'application/json';
    const response = await send(urlOf(options.baseUrl, path, loose.params), {
      method: method.toUpperCase(),
      headers: { ...headers, ...loose.headers },
      ...(loose.body === undefined ? {} : { body: stringifyBody(loose.body) }),
      ...(loose.signal === undefined ? {} : { signal: loose.signal }),
    });
    return answerOf(response);
  };
  return {
    get: (path, ...args) => request('get', path, args[0] as LooseOptions | undefined) as never,
    patch: (path, ...args) => request('patch', path, args[0] as LooseOptions | undefined) as never,
    post: (path, ...args) => request('post', path, args[0] as LooseOptions | undefined) as never,
  };
}
