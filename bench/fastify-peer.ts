/**
 * The Fastify peer of the HTTP benchmarks (issue 42, goal 4): the service's two hot routes as a team
 * would build them on Fastify 5, idiomatically, in one process, doing the work the service does for them.
 * - Store: its own SQLite file through better-sqlite3, with the service's durability (journal_mode WAL,
 *   synchronous FULL), seeded at start with the items of a file (the service's own GET body) and one API
 *   key, kept as its SHA-256 digest beside its limits.
 * - onRequest: `Authorization: Bearer <key>` or a 401 Error; the key's digest looked up (a Map in front
 *   of the table); a per-key limit a minute and a day, fixed windows counted in process (as
 *   @fastify/rate-limit's local store counts), X-RateLimit-Limit / -Remaining / -Reset (a Unix time) on
 *   each keyed answer, 429 + Retry-After (seconds) beyond the limit.
 * - One access-log line a request with Fastify's own pino logger (its request logging off, the line
 *   written in onResponse) to an asynchronous pino destination in a file, as the service logs at info.
 * - GET /v1/inventory: the list read from SQLite on every request (a prepared statement), serialized
 *   by the route's response schema (fast-json-stringify), a weak ETag of the body's SHA-1 and
 *   If-None-Match -> 304 (as @fastify/etag does, `weak: true`).
 * - PATCH /v1/inventory/:petId: params and body checked by JSON schema (Fastify's Ajv, its defaults),
 *   the stock set by one prepared UPDATE ... RETURNING in a transaction on the event loop (the status
 *   rule of the service: none left is sold, stock for a sold pet makes it available; the version moved),
 *   answered as the service's InventoryItem with the strong ETag of the new version; 404 for an unknown pet.
 * It does not: keep a stock-change history, Idempotency-Key outcomes, If-Match, reservations (reserved is
 * always 0), request ids in a header, the RateLimit / RateLimit-Policy headers, a limit on callers without
 * a key, bans, metrics, tracing, a group commit (each PATCH is its own transaction and sync), or the
 * service's other routes. Pet ids are JavaScript numbers (exact up to 2^53), and with Fastify's Ajv
 * defaults an unknown body field is dropped rather than refused, where the service answers 400.
 * Usage: node --import tsx bench/fastify-peer.ts <items-file> <db-file> <access-log-file>, with the key
 * in PEER_API_KEY and its limits in PEER_LIMITS (`<per minute>/<per day>`, 1000000000/1000000000 when
 * unset, out of reach as the benchmark's enterprise key); listens on a free port of 127.0.0.1 and prints
 * {"msg":"listening","url":"http://127.0.0.1:<port>/v1"}.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import Fastify, { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino from 'pino';

const [itemsFile, dbFile, accessLogFile] = process.argv.slice(2);
const apiKey = process.env.PEER_API_KEY;
if (itemsFile === undefined || dbFile === undefined || accessLogFile === undefined || apiKey === undefined)
  throw new Error('usage: PEER_API_KEY=<key> fastify-peer.ts <items-file> <db-file> <access-log-file>');
const [perMinute, perDay] = (process.env.PEER_LIMITS ?? '1000000000/1000000000').split('/').map(Number);
if (perMinute === undefined || perDay === undefined || !Number.isInteger(perMinute) || !Number.isInteger(perDay))
  throw new Error('PEER_LIMITS is <per minute>/<per day>, two whole numbers');

interface Item {
  petId: number;
  quantity: number;
  reserved: number;
  available: number;
  status: 'available' | 'pending' | 'sold';
}

// --- The store: a fresh file, the service's pragmas, seeded with the items and the key.
for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });
const db = new Database(dbFile);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
db.exec(`
  CREATE TABLE pets (
    id INTEGER PRIMARY KEY,
    quantity INTEGER NOT NULL CHECK (quantity >= 0),
    reserved INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold')),
    version INTEGER NOT NULL DEFAULT 1
  );
  CREATE TABLE api_keys (
    digest TEXT PRIMARY KEY,
    plan TEXT NOT NULL,
    per_minute INTEGER NOT NULL,
    per_day INTEGER NOT NULL
  );
`);
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const seed = db.transaction((items: readonly Item[]) => {
  const addPet = db.prepare('INSERT INTO pets (id, quantity, reserved, status) VALUES (?, ?, ?, ?)');
  for (const item of items) addPet.run(item.petId, item.quantity, item.reserved, item.status);
  db.prepare('INSERT INTO api_keys VALUES (?, ?, ?, ?)').run(sha256(apiKey), 'enterprise', perMinute, perDay);
});
seed(JSON.parse(readFileSync(itemsFile, 'utf8')) as Item[]);

const listItems = db.prepare<[], Item>(
  'SELECT id AS petId, quantity, reserved, quantity - reserved AS available, status FROM pets ORDER BY id',
);
const findKey = db.prepare<[string], { perMinute: number; perDay: number }>(
  'SELECT per_minute AS perMinute, per_day AS perDay FROM api_keys WHERE digest = ?',
);
const setStock = db.prepare<[{ petId: number; quantity: number }], Item & { version: number }>(
  `UPDATE pets SET quantity = @quantity,
     status = CASE WHEN @quantity = 0 THEN 'sold' WHEN status = 'sold' THEN 'available' ELSE status END,
     version = version + 1
   WHERE id = @petId
   RETURNING id AS petId, quantity, reserved, quantity - reserved AS available, status, version`,
);
const updateStock = db.transaction((petId: number, quantity: number) => setStock.get({ petId, quantity }));

// --- Keys and limits.
interface Limits {
  readonly perMinute: number;
  readonly perDay: number;
}
const keys = new Map<string, Limits>();
const keyOf = (digest: string): Limits | undefined => {
  let limits = keys.get(digest);
  if (limits === undefined) {
    limits = findKey.get(digest);
    if (limits !== undefined) keys.set(digest, limits);
  }
  return limits;
};

/** A fixed window's count for one key: the window's start (ms) and the requests it admitted. */
interface Window {
  start: number;
  count: number;
}
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const counters = new Map<string, { minute: Window; day: Window }>();

/** The window of `now`: the one it was, or a new one, counted from 0, once that one has ended. */
function windowAt(window: Window, lengthMs: number, now: number): Window {
  const start = now - (now % lengthMs);
  if (window.start !== start) {
    window.start = start;
    window.count = 0;
  }
  return window;
}

declare module 'fastify' {
  interface FastifyRequest {
    keyId: string | null;
  }
}

const error = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ code, message, status });

// --- The app.
const app = Fastify({
  logger: { level: 'info', stream: pino.destination({ dest: accessLogFile, sync: false, append: false }) },
  logController: new LogController({ disableRequestLogging: true }),
});
app.decorateRequest('keyId', null);

app.addHook('onRequest', async (request, reply) => {
  const header = request.headers.authorization;
  const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
  const digest = token === undefined || token === '' ? undefined : sha256(token);
  const limits = digest === undefined ? undefined : keyOf(digest);
  if (digest === undefined || limits === undefined)
    return error(reply, 401, 'unauthorized', 'the API key is missing or invalid; send Authorization: Bearer <key>');
  request.keyId = digest.slice(0, 12);
  const now = Date.now();
  let counter = counters.get(digest);
  if (counter === undefined) {
    counter = { minute: { start: 0, count: 0 }, day: { start: 0, count: 0 } };
    counters.set(digest, counter);
  }
  const minute = windowAt(counter.minute, MINUTE_MS, now);
  const day = windowAt(counter.day, DAY_MS, now);
  const minuteLeft = limits.perMinute - minute.count;
  const dayLeft = limits.perDay - day.count;
  // The headers tell of the window that binds first.
  const byMinute = minuteLeft <= dayLeft;
  const limit = byMinute ? limits.perMinute : limits.perDay;
  const resetMs = byMinute ? minute.start + MINUTE_MS : day.start + DAY_MS;
  const left = Math.min(minuteLeft, dayLeft);
  reply.header('x-ratelimit-limit', limit);
  reply.header('x-ratelimit-reset', Math.ceil(resetMs / 1000));
  if (left <= 0) {
    reply.header('x-ratelimit-remaining', 0);
    reply.header('retry-after', Math.max(1, Math.ceil((resetMs - now) / 1000)));
    return error(reply, 429, 'rate_limited', `the key's ${byMinute ? 'minute' : 'day'} limit of ${limit} is used up`);
  }
  minute.count += 1;
  day.count += 1;
  reply.header('x-ratelimit-remaining', left - 1);
});

app.addHook('onResponse', async (request, reply) => {
  request.log.info(
    {
      method: request.method,
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      ms: reply.elapsedTime,
      keyId: request.keyId,
    },
    'request',
  );
});

// Errors in the spec's shape: a schema's refusal is a 400, named after the part it refused.
app.setErrorHandler(
  (err: Error & { validation?: unknown; validationContext?: string; statusCode?: number }, request, reply) => {
    if (err.validation !== undefined) {
      const code = err.validationContext === 'params' ? 'invalid_pet_id' : 'invalid_body';
      return error(reply, 400, code, err.message);
    }
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'request failed');
    return error(
      reply,
      status,
      status === 500 ? 'internal' : 'bad_request',
      status === 500 ? 'internal error' : err.message,
    );
  },
);
app.setNotFoundHandler((request, reply) => error(reply, 404, 'not_found', `no route ${request.method} ${request.url}`));

const itemSchema = {
  type: 'object',
  properties: {
    petId: { type: 'integer' },
    quantity: { type: 'integer' },
    reserved: { type: 'integer' },
    available: { type: 'integer' },
    status: { type: 'string', enum: ['available', 'pending', 'sold'] },
  },
  required: ['petId', 'quantity', 'reserved', 'available', 'status'],
} as const;
const errorSchema = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } },
  required: ['code', 'message', 'status'],
} as const;

/** @fastify/etag's onSend with `weak: true`, for a 200: a tag of the serialized body, and 304 when it matches. */
function weakEtag(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (e: null, p?: unknown) => void,
) {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return done(null, payload);
  const tag = `W/"${createHash('sha1').update(payload).digest('base64')}"`;
  reply.header('etag', tag);
  const asked = request.headers['if-none-match'];
  if (asked === tag || `W/${asked}` === tag) {
    reply.code(304);
    return done(null, '');
  }
  done(null, payload);
}

app.get(
  '/v1/inventory',
  { schema: { response: { 200: { type: 'array', items: itemSchema }, '4xx': errorSchema } }, onSend: weakEtag },
  async () => listItems.all(),
);

app.patch<{ Params: { petId: number }; Body: { quantity: number } }>(
  '/v1/inventory/:petId',
  {
    schema: {
      params: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
      body: {
        type: 'object',
        properties: { quantity: { type: 'integer', minimum: 0, maximum: 2_147_483_647 } },
        required: ['quantity'],
        additionalProperties: false,
      },
      response: { 200: itemSchema, '4xx': errorSchema },
    },
  },
  async (request, reply) => {
    const { petId } = request.params;
    const updated = updateStock(petId, request.body.quantity);
    if (updated === undefined) return error(reply, 404, 'pet_not_found', `no pet has id ${petId}`);
    reply.header('etag', `"${updated.version}"`);
    return updated;
  },
);

// Exiting on SIGTERM, rather than being killed by it, lets `node --cpu-prof` write its profile.
process.once('SIGTERM', () => process.exit(0));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `${address}/v1` })}\n`);
