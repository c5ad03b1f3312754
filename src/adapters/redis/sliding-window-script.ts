/**
 * The Lua script behind RedisRateLimiter: one decision of the domain's limiter (src/domain/rate-limit.ts,
 * sliding-window.ts, ban.ts), mirrored step for step so that Redis and the in-process limiter agree.
 *
 * It must be one script: the ban check, the room check in both windows and the counting of an admitted
 * request in both are a read-then-write, and two service processes interleaving between the read and the
 * write would both admit the last free request. Redis runs a script alone, so it is atomic, and it costs
 * one round trip. Time comes from the server's TIME (one clock for every process), unless the caller
 * passes a time for tests.
 *
 * KEYS: 1 minute window, 2 day window, 3 strikes, 4 ban (one hash tag, so one cluster slot).
 * ARGV: 1 now in Unix ms, or '' for the server's clock; 2-4 minute limit, bucket ms, buckets per window;
 *       5-7 the same for the day; 8 strikes that ban; 9 strike window ms; 10 escalation window ms;
 *       11.. ban durations ms.
 *
 * A window is a hash: `total` (running count, so no decision sums the buckets), `newest` (the domain's
 * `newest`, so a clock that steps back still writes in order), `head` (the oldest bucket kept), `hc`
 * and `nc` (the counts of the head and the newest bucket), and per bucket b a count `c:b` and a link
 * `n:b` to the next bucket kept. Buckets are only ever appended at the newest end and dropped at the
 * oldest, as in the domain's insertion-ordered Map, so the links form a queue: expiry and "when does
 * Remaining next rise" walk from the head and stop early, amortised O(1), and the hash never holds more
 * than 2 (B+1) + 4 fields. Strikes are a list of refusal times (the domain's array); the ban is a hash
 * of `until`, `last` (when the last ban began) and `level`.
 *
 * Reply: admitted or refused: {code, now, minute remaining, minute reset ms, day remaining, day reset ms}.
 * Banned: {code, now, banned until ms, minute buckets, day buckets}, where buckets are flat
 * {bucket, count, ...} lists, oldest first: enough for the caller to answer the rest of the ban in
 * process, exactly as the domain would, because nothing is counted while a subject is banned.
 */
export const SLIDING_WINDOW_SCRIPT = `
local ADMITTED, RATE_LIMITED, BANNED = 0, 1, 2

local now
if ARGV[1] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = tonumber(ARGV[1])
end

-- Lua turns numbers into text with 14 digits; format whole numbers exactly.
local function int(n) return string.format('%d', n) end
local function countOf(bucket) return 'c:' .. int(bucket) end
local function linkOf(bucket) return 'n:' .. int(bucket) end

-- A window's header is read once and written back once: each redis.call costs, and this runs per
-- request. The header keeps the counts of the oldest and the newest bucket too, so that a request
-- that neither opens nor drops a bucket reads and writes nothing else.
local function window(key, limit, bucketMs, span)
  local header = redis.call('HMGET', key, 'total', 'head', 'newest', 'hc', 'nc')
  return {
    key = key, limit = tonumber(limit), bucketMs = tonumber(bucketMs), span = tonumber(span),
    total = tonumber(header[1]) or 0, head = tonumber(header[2]), newest = tonumber(header[3]),
    headCount = tonumber(header[4]), newestCount = tonumber(header[5]), writes = {},
  }
end
local minute = window(KEYS[1], ARGV[2], ARGV[3], ARGV[4])
local day = window(KEYS[2], ARGV[5], ARGV[6], ARGV[7])
local strikesKey, banKey = KEYS[3], KEYS[4]
local strikes, strikeWindowMs, escalationWindowMs = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local durations = {}
for i = 11, #ARGV do durations[#durations + 1] = tonumber(ARGV[i]) end

local function field(w, name) return tonumber(redis.call('HGET', w.key, name)) end

-- expireBuckets: drop the buckets before k - B, oldest first.
local function expire(w)
  local oldestCounted = math.floor(now / w.bucketMs) - w.span
  while w.head ~= nil and w.head < oldestCounted do
    local nextBucket = field(w, linkOf(w.head))
    redis.call('HDEL', w.key, countOf(w.head), linkOf(w.head))
    w.total = w.total - w.headCount
    w.head = nextBucket
    if nextBucket ~= nil then w.headCount = field(w, countOf(nextBucket)) end
    w.changed = true
  end
end

-- countRequest: one more in bucket max(k, newest).
local function count(w)
  local bucket = math.floor(now / w.bucketMs)
  if w.newest ~= nil and w.newest > bucket then bucket = w.newest end
  if w.head ~= nil and bucket == w.newest then
    w.newestCount = w.newestCount + 1
  else
    -- A new bucket is later than every kept one, and while any is kept the newest of them is 'newest'.
    if w.head == nil then
      w.head = bucket
    else
      w.writes[#w.writes + 1] = linkOf(w.newest)
      w.writes[#w.writes + 1] = int(bucket)
    end
    w.newest = bucket
    w.newestCount = 1
    -- The key lives as long as its newest bucket counts, so an idle subject vanishes on its own.
    w.expiresInMs = (bucket + w.span + 1) * w.bucketMs - now
  end
  if bucket == w.head then w.headCount = w.newestCount end
  w.writes[#w.writes + 1] = countOf(bucket)
  w.writes[#w.writes + 1] = int(w.newestCount)
  w.total = w.total + 1
  w.changed = true
end

-- The domain changes its state on every call, expiry included; so must Redis, or a clock that steps
-- back would find buckets here that the domain has dropped.
local function save(w)
  if not w.changed then return end
  if w.head == nil then
    redis.call('HDEL', w.key, 'head', 'hc', 'nc')
    redis.call('HSET', w.key, 'total', int(w.total), 'newest', int(w.newest))
  else
    redis.call('HSET', w.key, 'total', int(w.total), 'head', int(w.head), 'newest', int(w.newest),
      'hc', int(w.headCount), 'nc', int(w.newestCount), unpack(w.writes))
  end
  if w.expiresInMs ~= nil then redis.call('PEXPIRE', w.key, w.expiresInMs) end
end

-- remainingIn and nextRiseMs; usually the oldest bucket alone tells, and its count is in the header.
local function report(w, out)
  local threshold = math.min(w.total, w.limit)
  local resetAt = now
  local left = w.total
  local bucket, counted = w.head, w.headCount
  while threshold > 0 and bucket ~= nil do
    left = left - counted
    if left < threshold then
      resetAt = (bucket + w.span + 1) * w.bucketMs
      break
    end
    bucket = field(w, linkOf(bucket))
    if bucket ~= nil then counted = field(w, countOf(bucket)) end
  end
  out[#out + 1] = math.max(0, w.limit - w.total)
  out[#out + 1] = resetAt
end

-- The kept buckets as a flat {bucket, count, ...} list, oldest first, in one read.
local function buckets(w)
  local flat = redis.call('HGETALL', w.key)
  local fields = {}
  for i = 1, #flat, 2 do fields[flat[i]] = flat[i + 1] end
  local out = {}
  local bucket = w.head
  while bucket ~= nil do
    out[#out + 1] = bucket
    out[#out + 1] = tonumber(fields[countOf(bucket)])
    bucket = tonumber(fields[linkOf(bucket)])
  end
  return out
end

local function banned(untilMs)
  save(minute)
  save(day)
  return { BANNED, now, untilMs, buckets(minute), buckets(day) }
end

local function decided(code)
  save(minute)
  save(day)
  local out = { code, now }
  report(minute, out)
  report(day, out)
  return out
end

-- admitRequest
expire(minute)
expire(day)

local bannedUntil = tonumber(redis.call('HGET', banKey, 'until')) or 0
if bannedUntil > now then return banned(bannedUntil) end

if minute.total < minute.limit and day.total < day.limit then
  count(minute)
  count(day)
  return decided(ADMITTED)
end

-- recordStrike: a refusal uses no quota, but counts towards a ban.
local since = now - strikeWindowMs
while true do
  local oldest = redis.call('LINDEX', strikesKey, 0)
  if not oldest or tonumber(oldest) > since then break end
  redis.call('LPOP', strikesKey)
end
if redis.call('RPUSH', strikesKey, int(now)) < strikes then
  redis.call('PEXPIRE', strikesKey, strikeWindowMs)
  return decided(RATE_LIMITED)
end
redis.call('DEL', strikesKey)
local ban = redis.call('HMGET', banKey, 'last', 'level')
local lastBanAt, level = tonumber(ban[1]), 0
if lastBanAt ~= nil and now - lastBanAt < escalationWindowMs then
  level = math.min(tonumber(ban[2]) + 1, #durations - 1)
end
bannedUntil = now + durations[level + 1]
redis.call('HSET', banKey, 'until', int(bannedUntil), 'last', int(now), 'level', int(level))
-- The ban is kept while it lasts and while it can still lengthen the next one.
redis.call('PEXPIRE', banKey, math.max(bannedUntil, now + escalationWindowMs) - now)
return banned(bannedUntil)
`;
