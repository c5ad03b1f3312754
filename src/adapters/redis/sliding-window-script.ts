import { DAY_WINDOW, MINUTE_WINDOW, type WindowSpec } from '../../domain/sliding-window.js';

/** A window's bucket length and bucket count, written into the script as Lua numbers. */
const lua = (spec: WindowSpec): string => `${spec.bucketMs}, ${spec.windowMs / spec.bucketMs}`;

/**
 * The Lua script behind RedisRateLimiter: decisions of the domain's limiter (src/domain/rate-limit.ts,
 * sliding-window.ts, ban.ts), mirrored step for step so that Redis and the in-process limiter agree.
 *
 * A decision must be made inside one script: the ban check, the room check in both windows and the
 * counting of an admitted request in both are a read-then-write, and two service processes interleaving
 * between the read and the write would both admit the last free request. Redis runs a script alone, so
 * it is atomic. One call makes a batch of decisions, one after the other in the order given (several may
 * be for one subject), so that what a call costs apart from its decisions (the round trip, parsing the
 * command, starting the script, reading the clock) is paid once a batch. Time comes from the server's
 * TIME, read once a call (one clock for every process), unless the caller passes a time for tests. The
 * windows' bucket sizes are the domain's, written into the text; limits and the ban policy come with
 * every call.
 *
 * KEYS: one a decision, its subject's hash, which holds all of the subject's state (so a decision
 *       touches one key).
 * ARGV: 1 the ban policy as 'strikes strikeWindowMs escalationWindowMs duration1Ms duration2Ms ...', read
 *       only on a refusal; then three a decision: its time in Unix ms, or '' for the server's clock; the
 *       minute limit; the day limit.
 *
 * The hash's fields:
 * - `s`, the state every decision reads, packed with Lua's struct library (little-endian doubles, exact
 *   for these integers): the code of an admission and the time it was written (see Reply), then for the
 *   minute and then the day window `older` (the count of the buckets before the newest; the window's
 *   total is older + the newest's count), `head` (the oldest bucket kept), `newest` (the domain's
 *   `newest`, so a clock that steps back still writes in order) and the newest bucket's count, 0 for a
 *   window that holds nothing (the domain then forgets `newest` too); last, the end of the ban.
 * - `m<bucket>` and `d<bucket>`, one for every bucket before the newest that still counts in the minute
 *   or the day window, packing its count and the next bucket kept. Buckets are only ever appended at the
 *   newest end and dropped at the oldest, as in the domain's insertion-ordered Map, so the links form a
 *   queue: expiry and "when does Remaining next rise" walk from the head and stop early, amortised
 *   O(1), and there are never more than the B buckets before the newest of each window.
 * - `x`, the times of the recent refusals (the domain's strikes), and `b`, when the last ban began and
 *   its level: read and written only on a refusal.
 *
 * The common case, a request that lands in each window's newest bucket while nothing leaves, not
 * banned and with room, is decided first, by HGET and HSET of `s`: the cost of a decision is mostly its
 * redis.calls (around a microsecond each) and, in Lua 5.1, the closures and packing it runs, so that path
 * is written out in the script's loop, makes no function and packs the state once. Every other case runs
 * the general path (GENERAL_PATH), which follows the domain function by function.
 *
 * Expiry: the hash lives while anything in it can still matter: until the day's newest bucket leaves the
 * window (every request counts in both windows, so the day's newest bucket outlives the minute's), the
 * ban ends, and the last ban can no longer lengthen the next. The expiry is set when one of those ends
 * moves, and only ever lengthened, so it is never shorter than a day's buckets or a ban even when a
 * test clock runs far ahead of the server's. Older refusals and bans that stay in the hash past their
 * windows are ignored, as in the domain, which compares their times.
 *
 * Reply: one string, the answers of the decisions one after the other, each as whole numbers packed as
 * little-endian doubles, which Redis sends for less than a list of integers. Each answer starts with its
 * code and the server's time, and its code tells its length. Admitted: the state as just written
 * {code, now, then the windows and the ban's end as in `s`}, from which the caller reads Remaining and
 * when it rises; `s` is stored in that shape so that an admission packs once. Refused: {code, now,
 * minute remaining, minute reset ms, day remaining, day reset ms}. Banned: {code, now, banned until ms,
 * n, m, then n minute buckets and m day buckets, each as bucket, count, oldest first}: enough for the
 * caller to answer the rest of the ban in process, exactly as the domain would, because nothing is
 * counted while a subject is banned.
 */
/**
 * The general path of the script below, as a Lua expression: a function made once a call, when first
 * needed, that makes a decision of any case but the common one. It follows the domain function by
 * function, on the decision's locals of the script.
 */
const GENERAL_PATH = `(function()
  -- The state as stored, which is also the reply of an admission.
  local function state()
    return struct.pack(STATE, ADMITTED, now, mOlder, mHead, mNewest, mCount, dOlder, dHead, dNewest, dCount,
      bannedUntil)
  end

  -- expireBuckets: a window with the buckets that no longer count dropped, and whether any was.
  local function expire(prefix, bucket, span, older, head, newest, newestCount)
    local oldestCounted = bucket - span
    if newestCount == 0 or head >= oldestCounted then return older, head, newest, newestCount, false end
    -- Every bucket before the newest has a field; the newest lives in the state alone.
    local dropped = {}
    while head < oldestCounted and head ~= newest do
      local field = prefix .. head
      local count, nextBucket = struct.unpack(BUCKET, redis.call('HGET', key, field))
      older = older - count
      dropped[#dropped + 1] = field
      head = nextBucket
    end
    if #dropped > 0 then redis.call('HDEL', key, unpack(dropped)) end
    if head < oldestCounted then return 0, 0, 0, 0, true end
    return older, head, newest, newestCount, true
  end

  -- Lengthens the hash's life to at least endsAt.
  local function keepUntil(endsAt)
    if redis.call('PTTL', key) < endsAt - now then redis.call('PEXPIRE', key, endsAt - now) end
  end

  -- countRequest: the bucket that was newest gets a field of its own (appended to writes) when a newer one
  -- begins.
  local function count(prefix, bucket, older, head, newest, newestCount, writes)
    if newestCount == 0 then return 0, bucket, bucket, 1 end
    if bucket <= newest then return older, head, newest, newestCount + 1 end
    writes[#writes + 1] = prefix .. newest
    writes[#writes + 1] = struct.pack(BUCKET, newestCount, bucket)
    return older + newestCount, head, bucket, 1
  end

  -- The kept buckets of a window appended to out as bucket, count, oldest first; returns how many.
  local function buckets(prefix, head, newest, newestCount, out)
    if newestCount == 0 then return 0 end
    local n = 1
    if head ~= newest then
      local fields = redis.call('HGETALL', key)
      local older = {}
      for i = 1, #fields, 2 do
        if string.sub(fields[i], 1, 1) == prefix then older[tonumber(string.sub(fields[i], 2))] = fields[i + 1] end
      end
      local bucket = head
      while bucket ~= newest do
        local counted, nextBucket = struct.unpack(BUCKET, older[bucket])
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

  local function banned()
    local out = { BANNED, now, bannedUntil, 0, 0 }
    out[4] = buckets('m', mHead, mNewest, mCount, out)
    out[5] = buckets('d', dHead, dNewest, dCount, out)
    return struct.pack('<' .. string.rep('d', #out), unpack(out))
  end

  -- remainingIn and nextRiseMs of a window that counted nothing now.
  local function report(prefix, bucketMs, span, limit, older, head, newest, newestCount)
    local total = older + newestCount
    local resetAt = now
    if total > 0 and total <= limit then
      resetAt = (head + span + 1) * bucketMs
    elseif total > limit then
      -- A limit lowered below what is counted: walk until fewer than the limit are left.
      local left, bucket = total, head
      while true do
        local counted, nextBucket = newestCount, nil
        if bucket ~= newest then
          counted, nextBucket = struct.unpack(BUCKET, redis.call('HGET', key, prefix .. bucket))
        end
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

  -- The ban policy {strikes, strike window, escalation window, durations...}, read at the first refusal.
  local policy
  local function banPolicy()
    if not policy then
      policy = {}
      for n in string.gmatch(ARGV[1], '%d+') do policy[#policy + 1] = tonumber(n) end
    end
    return policy
  end

  -- admitRequest after the common case: expiry, then admitted, banned or refused (recordStrike).
  local function general()
    local mExpired, dExpired
    mOlder, mHead, mNewest, mCount, mExpired = expire('m', minuteBucket, MINUTE_SPAN, mOlder, mHead, mNewest, mCount)
    dOlder, dHead, dNewest, dCount, dExpired = expire('d', dayBucket, DAY_SPAN, dOlder, dHead, dNewest, dCount)

    if bannedUntil <= now and mOlder + mCount < minuteLimit and dOlder + dCount < dayLimit then
      local writes = {}
      local dWas, dWasCounted = dNewest, dCount > 0
      mOlder, mHead, mNewest, mCount = count('m', minuteBucket, mOlder, mHead, mNewest, mCount, writes)
      dOlder, dHead, dNewest, dCount = count('d', dayBucket, dOlder, dHead, dNewest, dCount, writes)
      local admitted = state()
      redis.call('HSET', key, 's', admitted, unpack(writes))
      if dNewest ~= dWas or not dWasCounted then keepUntil((dNewest + DAY_SPAN + 1) * DAY_BUCKET_MS) end
      return admitted
    end

    -- The domain changes its state on every call, expiry included; so must Redis, or a clock that steps
    -- back would find buckets here that the domain has dropped.
    if mExpired or dExpired then redis.call('HSET', key, 's', state()) end
    if bannedUntil > now then return banned() end

    -- A refusal uses no quota, but counts towards a ban.
    local ban = banPolicy()
    local strikes, strikeWindowMs, escalationWindowMs = ban[1], ban[2], ban[3]
    local kept = {}
    local recent = redis.call('HGET', key, 'x')
    if recent then
      -- As the domain does, drop from the oldest end only while they are out of the window: after a clock
      -- stepped back, a later refusal can hold an earlier time, and it stays.
      local since, dropping = now - strikeWindowMs, true
      for i = 1, #recent, 8 do
        local at = struct.unpack('<d', recent, i)
        dropping = dropping and at <= since
        if not dropping then kept[#kept + 1] = at end
      end
    end
    kept[#kept + 1] = now
    if #kept < strikes then
      redis.call('HSET', key, 'x', struct.pack('<' .. string.rep('d', #kept), unpack(kept)))
      local mRemaining, mResetAt =
        report('m', MINUTE_BUCKET_MS, MINUTE_SPAN, minuteLimit, mOlder, mHead, mNewest, mCount)
      local dRemaining, dResetAt = report('d', DAY_BUCKET_MS, DAY_SPAN, dayLimit, dOlder, dHead, dNewest, dCount)
      return struct.pack(REFUSED, RATE_LIMITED, now, mRemaining, mResetAt, dRemaining, dResetAt)
    end
    local level = 0
    local last = redis.call('HGET', key, 'b')
    if last then
      local lastBanAt, lastLevel = struct.unpack(LAST_BAN, last)
      if now - lastBanAt < escalationWindowMs then level = math.min(lastLevel + 1, #ban - 4) end
    end
    bannedUntil = now + ban[4 + level]
    redis.call('HSET', key, 's', state(), 'b', struct.pack(LAST_BAN, now, level))
    redis.call('HDEL', key, 'x')
    -- The ban is kept while it lasts and while it can still lengthen the next one.
    keepUntil(math.max(bannedUntil, now + escalationWindowMs))
    return banned()
  end


  return general
end)()`;

export const SLIDING_WINDOW_SCRIPT = `
local ADMITTED, RATE_LIMITED, BANNED = 0, 1, 2
local MINUTE_BUCKET_MS, MINUTE_SPAN = ${lua(MINUTE_WINDOW)}
local DAY_BUCKET_MS, DAY_SPAN = ${lua(DAY_WINDOW)}
-- Formats of struct.pack: the state, its windows and ban (what follows its code and time, from byte 17),
-- an older bucket {count, next bucket}, the reply of a refusal, and the last ban {began at, level}.
local STATE, WINDOWS_AND_BAN, BUCKET, REFUSED, LAST_BAN = '<ddddddddddd', '<ddddddddd', '<dd', '<dddddd', '<dd'
local floor = math.floor

-- The decision being made: its subject's key, its time and limits, and the subject's state. The loop at
-- the end sets them; the general path reads and changes them, one decision at a time.
local key, now, minuteLimit, dayLimit, minuteBucket, dayBucket
local mOlder, mHead, mNewest, mCount, dOlder, dHead, dNewest, dCount, bannedUntil

-- Every case but the common one runs the general path: the functions below, made by the first decision of
-- a call that needs them. Lua makes a function anew each time its definition runs, and one that reaches
-- many of the locals above takes about a microsecond to make, as long as the rest of a common decision:
-- so the common case makes none.
local general

-- The decisions of the batch, in order; the server's clock is read once, for all that ask for it.
local replies, serverNow = {}, nil
for i = 1, #KEYS do
  key = KEYS[i]
  local at = 3 * i - 1
  if ARGV[at] == '' then
    if not serverNow then
      local time = redis.call('TIME')
      serverNow = time[1] * 1000 + floor(time[2] / 1000)
    end
    now = serverNow
  else
    now = tonumber(ARGV[at])
  end
  minuteLimit, dayLimit = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  minuteBucket, dayBucket = floor(now / MINUTE_BUCKET_MS), floor(now / DAY_BUCKET_MS)
  mOlder, mHead, mNewest, mCount, dOlder, dHead, dNewest, dCount, bannedUntil = 0, 0, 0, 0, 0, 0, 0, 0, 0
  local packed = redis.call('HGET', key, 's')
  if packed then
    mOlder, mHead, mNewest, mCount, dOlder, dHead, dNewest, dCount, bannedUntil =
      struct.unpack(WINDOWS_AND_BAN, packed, 17)
  end
  -- The common case: both windows hold buckets and the request falls in each newest bucket (or before
  -- it, on a clock that stepped back), no ban, and room in both. Then no bucket leaves either: when a
  -- bucket became the newest, the ones more than a span before it had just been dropped.
  if mCount > 0 and dCount > 0 and minuteBucket <= mNewest and dayBucket <= dNewest and bannedUntil <= now
    and mOlder + mCount < minuteLimit and dOlder + dCount < dayLimit then
    mCount, dCount = mCount + 1, dCount + 1
    -- The state as stored, which is also the reply of an admission.
    local admitted = struct.pack(STATE, ADMITTED, now, mOlder, mHead, mNewest, mCount, dOlder, dHead, dNewest,
      dCount, bannedUntil)
    redis.call('HSET', key, 's', admitted)
    replies[i] = admitted
  else
    general = general or ${GENERAL_PATH}
    replies[i] = general()
  end
end
-- A lone answer goes as it is: joining one string would copy it for nothing.
if #replies == 1 then return replies[1] end
return table.concat(replies)
`;
