import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { expect } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../../src/adapters/http/error-table.js';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../../src/adapters/http/json-body.js';
import { type OpenApiServers, openApiDocument } from '../../../src/adapters/http/openapi.js';

/** The servers every test app is built with. */
export const TEST_SERVERS: OpenApiServers = {
  production: 'https://api.petstore.example/v1',
  staging: 'https://staging.api.petstore.example/v1',
};

/** The document the test apps serve, built the way the app builds it. */
export const DOCUMENT = openApiDocument(TEST_SERVERS, DEFAULT_BODY_LIMIT_BYTES);

/** A response as a test received it: the body read whole, as text. */
export interface ReceivedResponse {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

type Node = { readonly [key: string]: unknown };

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

// ajv-formats is CommonJS: its plugin is the module itself at run time, and `default` only in its types.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(DOCUMENT as object, 'openapi.json');

const validators = new Map<string, ValidateFunction>();

const escapePointer = (part: string): string => part.replaceAll('~', '~0').replaceAll('/', '~1');

/** Validates `value` against the schema at `parts` of the document (compiled once per place). */
function validateAt(parts: readonly string[], value: unknown): string | undefined {
  const pointer = `openapi.json#/${parts.map(escapePointer).join('/')}`;
  let validate = validators.get(pointer);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: pointer });
    validators.set(pointer, validate);
  }
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

/** Follows a `$ref` within the document, or returns the node itself. */
function deref(node: unknown): Node {
  if (!isNode(node)) throw new Error(`not an object in the OpenAPI document: ${String(node)}`);
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  let target: unknown = DOCUMENT;
  for (const part of ref.slice(2).split('/')) target = isNode(target) ? target[part] : undefined;
  return deref(target);
}

const child = (node: Node, key: string): Node => deref(node[key]);

const API_BASE = new URL(TEST_SERVERS.production).pathname;

/** The documented path template a request path falls under, if any. */
function templateOf(path: string): string | undefined {
  if (!path.startsWith(`${API_BASE}/`)) return undefined;
  const relative = path.slice(API_BASE.length);
  return Object.keys(child(DOCUMENT, 'paths')).find((template) =>
    new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replaceAll('.', '\\.')}$`).test(relative),
  );
}

const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
];

function expectErrorBody(response: ReceivedResponse): void {
  const where = `${response.method} ${response.path} -> ${response.status}`;
  expect(response.headers.get('content-type'), where).toMatch(/^application\/json\b/);
  if (response.method === 'HEAD') return;
  const body: unknown = JSON.parse(response.text);
  expect(validateAt(['components', 'schemas', 'Error'], body), `${where}: ${response.text}`).toBeUndefined();
  const code = (body as { code: ErrorCode }).code;
  expect((body as { status: number }).status, where).toBe(response.status);
  expect(ERROR_STATUS[code], where).toBe(response.status);
  if (code === 'unauthorized') expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
  if (code === 'method_not_allowed') expect(response.headers.get('allow'), where).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
  if (code === 'rate_limited' || code === 'key_banned') {
    expect(response.headers.get('retry-after'), where).toMatch(/^[1-9][0-9]*$/);
  }
}

function expectDocumentedAnswer(response: ReceivedResponse, template: string, operation: Node): void {
  const where = `${response.method} ${response.path} -> ${response.status}`;
  const responses = child(operation, 'responses');
  expect(Object.keys(responses), `${where} is not documented`).toContain(String(response.status));
  const documented = child(responses, String(response.status));
  for (const [name, header] of Object.entries(isNode(documented.headers) ? documented.headers : {})) {
    const spec = deref(header);
    const value = response.headers.get(name);
    if (spec.required === true) expect(value, `${where} lacks ${name}`).not.toBeNull();
    if (value === null) continue;
    const schema = child(spec, 'schema');
    const typed = schema.type === 'integer' ? Number(value) : value;
    // The component a field refers to (`Link.next` for a paging Link), not the field's own name.
    const component = isNode(header) && typeof header.$ref === 'string' ? header.$ref.slice(2).split('/') : [];
    expect(validateAt([...component, 'schema'], typed), `${where}: ${name}: ${value}`).toBeUndefined();
  }
  if (response.method === 'HEAD') return;
  if (documented.content === undefined) {
    expect(response.text, `${where} must have no body`).toBe('');
    return;
  }
  const content = child(documented, 'content');
  const media = Object.keys(content).find(
    (type) => type.split(';')[0] === response.headers.get('content-type')?.split(';')[0],
  );
  expect(media, `${where}: ${response.headers.get('content-type')} is not documented`).toBeDefined();
  // A body that is not JSON (the CSV) is text: its media type is all the document says of it.
  if (media !== 'application/json') return;
  const pointer = [
    'paths',
    template,
    response.method.toLowerCase(),
    'responses',
    String(response.status),
    'content',
    'application/json',
    'schema',
  ];
  expect(validateAt(pointer, JSON.parse(response.text)), `${where}: ${response.text.slice(0, 300)}`).toBeUndefined();
}

function expectProbeAnswer(response: ReceivedResponse): void {
  const isProbe = response.path === '/livez' || response.path === '/readyz';
  if (!isProbe || response.status >= 400 || response.method === 'HEAD') return;
  expect(response.text).toBe(response.path === '/livez' ? '{"status":"live"}' : '{"status":"ready"}');
}

/**
 * Checks one response against the OpenAPI document and the rules every response keeps: an X-Request-Id;
 * the Error body (matching its status by the error table) on every failure; under /v1 the rate-limit
 * headers (but on a 500 or 503: then the limiter may not have answered); for a documented operation, a
 * documented status, every required header of that response (valid by its schema) and a body valid by
 * the response schema; for anything else, only a refusal by the guard or by routing.
 */
export function expectMatchesDocument(response: ReceivedResponse): void {
  const where = `${response.method} ${response.path} -> ${response.status}`;
  expect(response.headers.get('x-request-id'), where).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
  expect(response.status, where).toBeLessThan(600);
  if (response.status >= 400) expectErrorBody(response);
  const underApi = response.path === API_BASE || response.path.startsWith(`${API_BASE}/`);
  if (!underApi) {
    expectProbeAnswer(response);
    return;
  }
  if (response.status !== 500 && response.status !== 503) {
    for (const name of RATE_LIMIT_HEADERS) expect(response.headers.get(name), `${where} lacks ${name}`).not.toBeNull();
  }
  const template = templateOf(response.path);
  const method = response.method === 'HEAD' ? 'get' : response.method.toLowerCase();
  const pathItem = template === undefined ? undefined : child(child(DOCUMENT, 'paths'), template);
  const operation = pathItem?.[method];
  if (template === undefined || operation === undefined) {
    // Off the documented operations: refused by the guard, or by routing (404 for an unknown path, 405
    // for a known one under another method).
    const routing = template === undefined ? 404 : 405;
    expect([401, 429, 500, 503, routing], `${where} off the documented operations`).toContain(response.status);
    return;
  }
  expectDocumentedAnswer(response, template, deref(operation));
}
