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
 * `newest`, so a clock that steps back still writes in order), `head` (the oldest bucket kept), and per
 * bucket b a count `c:b` and a link `n:b` to the next bucket kept. Buckets are only ever appended at the
 * newest end and dropped at the oldest, as the domain's insertion-ordered Map, so the links form a queue:
 * expiry and "when does Remaining next rise" walk from the head and stop early, amortised O(1), and the
 * hash never holds more than 2 (B+1) + 2 fields. Strikes are a list of refusal times (the domain's
 * array); the ban is a hash of `until`, `last` (when the last ban began) and `level`.
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

local function window(key, limit, bucketMs, span)
  return { key = key, limit = tonumber(limit), bucketMs = tonumber(bucketMs), span = tonumber(span) }
end
local minute = window(KEYS[1], ARGV[2], ARGV[3], ARGV[4])
local day = window(KEYS[2], ARGV[5], ARGV[6], ARGV[7])
local strikesKey, banKey = KEYS[3], KEYS[4]
local strikes, strikeWindowMs, escalationWindowMs = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local durations = {}
for i = 11, #ARGV do durations[#durations + 1] = tonumber(ARGV[i]) end

-- Lua turns numbers into text with 14 digits; format whole numbers exactly.
local function int(n) return string.format('%d', n) end
local function get(key, name) return tonumber(redis.call('HGET', key, name)) end
local function countOf(bucket) return 'c:' .. int(bucket) end
local function linkOf(bucket) return 'n:' .. int(bucket) end

-- expireBuckets: drop the buckets before k - B, oldest first.
local function expire(w)
  local oldestCounted = math.floor(now / w.bucketMs) - w.span
  local head = get(w.key, 'head')
  if head == nil or head >= oldestCounted then return end
  local dropped = 0
  repeat
    dropped = dropped + get(w.key, countOf(head))
    local nextBucket = get(w.key, linkOf(head))
    redis.call('HDEL', w.key, countOf(head), linkOf(head))
    head = nextBucket
  until head == nil or head >= oldestCounted
  redis.call('HINCRBY', w.key, 'total', -dropped)
  if head == nil then redis.call('HDEL', w.key, 'head') else redis.call('HSET', w.key, 'head', int(head)) end
end

-- countRequest: one more in bucket max(k, newest).
local function count(w)
  local newest = get(w.key, 'newest')
  local bucket = math.floor(now / w.bucketMs)
  if newest ~= nil and newest > bucket then bucket = newest end
  if redis.call('HINCRBY', w.key, countOf(bucket), 1) == 1 then
    -- A new bucket is later than every kept one, and while any is kept the newest of them is 'newest'.
    if redis.call('HEXISTS', w.key, 'head') == 1 then
      redis.call('HSET', w.key, linkOf(newest), int(bucket))
    else
      redis.call('HSET', w.key, 'head', int(bucket))
    end
  end
  redis.call('HSET', w.key, 'newest', int(bucket))
  redis.call('HINCRBY', w.key, 'total', 1)
  -- The key lives as long as its newest bucket counts; an idle subject then vanishes.
  redis.call('PEXPIRE', w.key, (bucket + w.span + 1) * w.bucketMs - now)
end

local function total(w) return get(w.key, 'total') or 0 end

-- remainingIn and nextRiseMs.
local function report(w, out)
  local counted = total(w)
  local threshold = math.min(counted, w.limit)
  local resetAt = now
  if threshold > 0 then
    local left = counted
    local bucket = get(w.key, 'head')
    while bucket ~= nil do
      left = left - get(w.key, countOf(bucket))
      if left < threshold then
        resetAt = (bucket + w.span + 1) * w.bucketMs
        break
      end
      bucket = get(w.key, linkOf(bucket))
    end
  end
  out[#out + 1] = math.max(0, w.limit - counted)
  out[#out + 1] = resetAt
end

local function buckets(w)
  local out = {}
  local bucket = get(w.key, 'head')
  while bucket ~= nil do
    out[#out + 1] = bucket
    out[#out + 1] = get(w.key, countOf(bucket))
    bucket = get(w.key, linkOf(bucket))
  end
  return out
end

local function banned(untilMs)
  return { BANNED, now, untilMs, buckets(minute), buckets(day) }
end

-- admitRequest
expire(minute)
expire(day)

local bannedUntil = get(banKey, 'until') or 0
if bannedUntil > now then return banned(bannedUntil) end

if total(minute) < minute.limit and total(day) < day.limit then
  count(minute)
  count(day)
  local out = { ADMITTED, now }
  report(minute, out)
  report(day, out)
  return out
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
  local out = { RATE_LIMITED, now }
  report(minute, out)
  report(day, out)
  return out
end
redis.call('DEL', strikesKey)
local lastBanAt = get(banKey, 'last')
local level = 0
if lastBanAt ~= nil and now - lastBanAt < escalationWindowMs then
  level = math.min(get(banKey, 'level') + 1, #durations - 1)
end
bannedUntil = now + durations[level + 1]
redis.call('HSET', banKey, 'until', int(bannedUntil), 'last', int(now), 'level', int(level))
-- The ban is kept while it lasts and while it can still lengthen the next one.
redis.call('PEXPIRE', banKey, math.max(bannedUntil, now + escalationWindowMs) - now)
return banned(bannedUntil)
`;
