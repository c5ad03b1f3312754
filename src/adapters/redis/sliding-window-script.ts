import { DAY_WINDOW, MINUTE_WINDOW, type WindowSpec } from '../../domain/sliding-window.js';

/** A window's bucket length and bucket count, written into the script as Lua numbers. */
const lua = (spec: WindowSpec): string => `${spec.bucketMs}, ${spec.windowMs / spec.bucketMs}`;

/**
 * The Lua script behind RedisRateLimiter: one decision of the domain's limiter (src/domain/rate-limit.ts,
 * sliding-window.ts, ban.ts), mirrored step for step so that Redis and the in-process limiter agree.
 *
 * It must be one script: the ban check, the room check in both windows and the counting of an admitted
 * request in both are a read-then-write, and two service processes interleaving between the read and the
 * write would both admit the last free request. Redis runs a script alone, so it is atomic, and it costs
 * one round trip. Time comes from the server's TIME (one clock for every process), unless the caller
 * passes a time for tests. The windows' bucket sizes are the domain's, written into the text; limits and
 * the ban policy come with every call.
 *
 * KEYS: 1 minute window, 2 day window, 3 strikes, 4 ban (one hash tag, so one cluster slot).
 * ARGV: 1 now in Unix ms, or '' for the server's clock; 2 minute limit; 3 day limit; 4 the ban policy as
 *       'strikes strikeWindowMs escalationWindowMs duration1Ms duration2Ms ...', read only on a refusal.
 *
 * A window is a hash. Field `h`, its header, packs four numbers (Lua's struct library, little-endian
 * doubles, exact for these integers): `older` (the count of the buckets before the newest; the window's
 * total is older + the newest's count), `head` (the oldest bucket kept), `newest` (the domain's `newest`,
 * so a clock that steps back still writes in order) and the newest bucket's count. Every bucket b before
 * the newest has a field named b that packs its count and the next bucket kept. Buckets are only ever
 * appended at the newest end and dropped at the oldest, as in the domain's insertion-ordered Map, so the
 * links form a queue: expiry and "when does Remaining next rise" walk from the head and stop early,
 * amortised O(1), and the hash never holds more than B + 1 fields for the B + 1 buckets that count. A
 * window with no bucket left has no state in the domain either (it forgets `newest`), so its key is
 * deleted. Strikes are a list of refusal times (the domain's array); the ban is a hash of `until`, `last`
 * (when the last ban began) and `level`.
 *
 * The script runs for every request, so its common path, a request in each window's newest bucket, is
 * kept to six redis.calls (TIME, the two headers, the ban, the two headers written back), each costing
 * about a microsecond: a header is one field because one packed field reads and writes faster than four
 * plain ones, and a window's state travels as plain values, not a table, to spare allocations and the
 * garbage they leave. Numbers go to redis.call as Lua numbers, which Redis writes as exact integers.
 * Each window keeps its header in its own key, which expires on its own: both headers and the ban's end
 * in one field of the day hash would spare two calls, measured at about 0.5 µs of 7, but would tie the
 * minute's state and the ban to the day key's lifetime.
 *
 * Reply: its figures, whole numbers, packed as little-endian doubles in one string, which Redis sends for
 * less than a list of integers. Admitted or refused: {code, now, minute remaining, minute reset ms, day
 * remaining, day reset ms}. Banned: {code, now, banned until ms, n, then n minute buckets and after them
 * the day buckets, each as bucket, count, oldest first}: enough for the caller to answer the rest of the
 * ban in process, exactly as the domain would, because nothing is counted while a subject is banned.
 */
export const SLIDING_WINDOW_SCRIPT = `
local ADMITTED, RATE_LIMITED, BANNED = 0, 1, 2
local MINUTE_BUCKET_MS, MINUTE_SPAN = ${lua(MINUTE_WINDOW)}
local DAY_BUCKET_MS, DAY_SPAN = ${lua(DAY_WINDOW)}
-- Formats of struct.pack: a header {older, head, newest, newest's count}, a bucket {count, next bucket},
-- and the reply of an admission or a refusal.
local HEADER, BUCKET, DECIDED = '<dddd', '<dd', '<dddddd'
local minuteKey, dayKey, strikesKey, banKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local minuteLimit, dayLimit = tonumber(ARGV[2]), tonumber(ARGV[3])

local now
if ARGV[1] == '' then
  local time = redis.call('TIME')
  now = time[1] * 1000 + math.floor(time[2] / 1000)
else
  now = tonumber(ARGV[1])
end

-- A window after expireBuckets: older, head, newest, newest's count, and whether a bucket was dropped.
-- An absent key is an empty window: 0 older, and head, newest and count nil.
local function load(key, bucketMs, span)
  local header = redis.call('HGET', key, 'h')
  if not header then return 0, nil, nil, nil, false end
  local older, head, newest, newestCount = struct.unpack(HEADER, header)
  local oldestCounted = math.floor(now / bucketMs) - span
  if head >= oldestCounted then return older, head, newest, newestCount, false end
  if newest < oldestCounted then
    redis.call('DEL', key)
    return 0, nil, nil, nil, false
  end
  -- The newest bucket stays, so the walk stops before it, at buckets that all have a field.
  local dropped = {}
  repeat
    local count, nextBucket = struct.unpack(BUCKET, redis.call('HGET', key, head))
    older = older - count
    dropped[#dropped + 1] = head
    head = nextBucket
  until head >= oldestCounted
  redis.call('HDEL', key, unpack(dropped))
  return older, head, newest, newestCount, true
end

-- countRequest, then remainingIn and nextRiseMs. Room was checked, so at most the limit is counted now,
-- and as every kept bucket holds at least one request, the head's leaving already brings a rise.
local function count(key, bucketMs, span, limit, older, head, newest, newestCount)
  local bucket = math.floor(now / bucketMs)
  if newest ~= nil and bucket <= newest then
    newestCount = newestCount + 1
    redis.call('HSET', key, 'h', struct.pack(HEADER, older, head, newest, newestCount))
    return limit - older - newestCount, (head + span + 1) * bucketMs
  end
  if newest == nil then
    head = bucket
    redis.call('HSET', key, 'h', struct.pack(HEADER, 0, bucket, bucket, 1))
  else
    -- The bucket that was newest gets a field of its own, linked to the new one.
    older = older + newestCount
    redis.call('HSET', key, 'h', struct.pack(HEADER, older, head, bucket, 1),
      newest, struct.pack(BUCKET, newestCount, bucket))
  end
  -- The key lives until its newest bucket leaves the window, when the domain would hold nothing: so
  -- its expiry moves only when the newest bucket does, and an idle subject vanishes on its own.
  redis.call('PEXPIRE', key, (bucket + span + 1) * bucketMs - now)
  return limit - older - 1, (head + span + 1) * bucketMs
end

-- admitRequest
local mOlder, mHead, mNewest, mCount, mExpired = load(minuteKey, MINUTE_BUCKET_MS, MINUTE_SPAN)
local dOlder, dHead, dNewest, dCount, dExpired = load(dayKey, DAY_BUCKET_MS, DAY_SPAN)
local bannedUntil = tonumber(redis.call('HGET', banKey, 'until')) or 0
if bannedUntil <= now and mOlder + (mCount or 0) < minuteLimit and dOlder + (dCount or 0) < dayLimit then
  local mRemaining, mResetAt =
    count(minuteKey, MINUTE_BUCKET_MS, MINUTE_SPAN, minuteLimit, mOlder, mHead, mNewest, mCount)
  local dRemaining, dResetAt = count(dayKey, DAY_BUCKET_MS, DAY_SPAN, dayLimit, dOlder, dHead, dNewest, dCount)
  return struct.pack(DECIDED, ADMITTED, now, mRemaining, mResetAt, dRemaining, dResetAt)
end

-- Banned or refused: rarer. Lua makes a function anew each time its definition runs, so the functions
-- needed only from here on are defined here, off the common path.

-- The domain changes its state on every call, expiry included; so must Redis, or a clock that steps
-- back would find buckets here that the domain has dropped.
local function saveExpiry(key, older, head, newest, newestCount, expired)
  if expired then redis.call('HSET', key, 'h', struct.pack(HEADER, older, head, newest, newestCount)) end
end
saveExpiry(minuteKey, mOlder, mHead, mNewest, mCount, mExpired)
saveExpiry(dayKey, dOlder, dHead, dNewest, dCount, dExpired)

-- The kept buckets appended to out as bucket, count, oldest first; returns how many.
local function buckets(key, head, newest, newestCount, out)
  if head == nil then return 0 end
  local n = 1
  if head ~= newest then
    local flat = redis.call('HGETALL', key)
    local fields = {}
    for i = 1, #flat, 2 do
      local bucket = tonumber(flat[i])
      if bucket ~= nil then fields[bucket] = flat[i + 1] end
    end
    local bucket = head
    while bucket ~= newest do
      local counted, nextBucket = struct.unpack(BUCKET, fields[bucket])
      out[#out + 1] = bucket
      out[#out + 1] = counted
      bucket = nextBucket
      n = n + 1
    end
  end
  out[#out + 1] = newest
  out[#out + 1] = newestCount
  return n
end

local function banned(untilMs)
  local out = { BANNED, now, untilMs, 0 }
  out[4] = buckets(minuteKey, mHead, mNewest, mCount, out)
  buckets(dayKey, dHead, dNewest, dCount, out)
  return struct.pack('<' .. string.rep('d', #out), unpack(out))
end
if bannedUntil > now then return banned(bannedUntil) end

-- remainingIn and nextRiseMs of a window that counted nothing now.
local function report(key, bucketMs, span, limit, older, head, newest, newestCount)
  local total = older + (newestCount or 0)
  local resetAt = now
  if total > 0 and total <= limit then
    resetAt = (head + span + 1) * bucketMs
  elseif total > limit then
    -- A limit lowered below what is counted: walk until fewer than the limit are left.
    local left, bucket = total, head
    while true do
      local counted, nextBucket = newestCount, nil
      if bucket ~= newest then counted, nextBucket = struct.unpack(BUCKET, redis.call('HGET', key, bucket)) end
      left = left - counted
      if left < limit then
        resetAt = (bucket + span + 1) * bucketMs
        break
      end
      bucket = nextBucket
    end
  end
  return math.max(0, limit - total), resetAt
end

local function refused()
  local mRemaining, mResetAt =
    report(minuteKey, MINUTE_BUCKET_MS, MINUTE_SPAN, minuteLimit, mOlder, mHead, mNewest, mCount)
  local dRemaining, dResetAt = report(dayKey, DAY_BUCKET_MS, DAY_SPAN, dayLimit, dOlder, dHead, dNewest, dCount)
  return struct.pack(DECIDED, RATE_LIMITED, now, mRemaining, mResetAt, dRemaining, dResetAt)
end

-- recordStrike: a refusal uses no quota, but counts towards a ban.
local policy = {}
for n in string.gmatch(ARGV[4], '%d+') do policy[#policy + 1] = tonumber(n) end
local strikes, strikeWindowMs, escalationWindowMs = policy[1], policy[2], policy[3]
local since = now - strikeWindowMs
while true do
  local oldest = redis.call('LINDEX', strikesKey, 0)
  if not oldest or tonumber(oldest) > since then break end
  redis.call('LPOP', strikesKey)
end
if redis.call('RPUSH', strikesKey, now) < strikes then
  -- The list lives until its newest refusal leaves the strike window.
  redis.call('PEXPIRE', strikesKey, strikeWindowMs)
  return refused()
end
redis.call('DEL', strikesKey)
local ban = redis.call('HMGET', banKey, 'last', 'level')
local lastBanAt, level = tonumber(ban[1]), 0
if lastBanAt ~= nil and now - lastBanAt < escalationWindowMs then
  level = math.min(tonumber(ban[2]) + 1, #policy - 4)
end
bannedUntil = now + policy[4 + level]
redis.call('HSET', banKey, 'until', bannedUntil, 'last', now, 'level', level)
-- The ban is kept while it lasts and while it can still lengthen the next one.
redis.call('PEXPIRE', banKey, math.max(bannedUntil, now + escalationWindowMs) - now)
return banned(bannedUntil)
`;
