import type { RateLimitPolicy } from '../../domain/plan.js';
import { newSubjectState, type SubjectState } from '../../domain/rate-limit.js';
import { type RateLimitStanding, standingOf } from '../../domain/rate-limit-standing.js';
import { newWindowCounter, type WindowCounter } from '../../domain/sliding-window.js';

/**
 * The read-only script behind RedisRateLimiter.peek: the time (the server's TIME, or the one passed)
 * and the whole hash of one subject, read together so that they agree. It writes nothing, so a peek
 * can neither count a request nor expire a bucket; the caller reads the hash with the domain's own
 * functions (see subjectStateOf). One key a call: it lives in one slot of a cluster.
 *
 * KEYS: the subject's hash. ARGV: 1 the time in Unix ms, or '' for the server's clock.
 * Reply: {time in Unix ms, the hash's fields and values, alternating}.
 */
export const PEEK_SCRIPT = `
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = time[1] * 1000 + math.floor(time[2] / 1000)
end
return { now, redis.call('HGETALL', KEYS[1]) }
`;

// The layout the sliding-window script writes (sliding-window-script.ts): `s` packs 11 little-endian
// doubles {code, time, then for the minute and the day window older, head, newest, newest's count, then
// the ban's end}; `m<bucket>` and `d<bucket>` pack {count, next bucket} for every kept bucket before
// the newest, linked from `head`.
const STATE_FIGURES = 11;

const figure = (packed: Buffer, index: number): number => packed.readDoubleLE(8 * index);

/** A window counter from the linked buckets of one window, as the domain keeps it (oldest first). */
function windowOf(fields: ReadonlyMap<string, Buffer>, prefix: string, state: Buffer, at: number): WindowCounter {
  const out = newWindowCounter();
  const head = figure(state, at + 1);
  const newest = figure(state, at + 2);
  const newestCount = figure(state, at + 3);
  if (newestCount === 0) return out;
  let bucket = head;
  while (bucket !== newest) {
    const packed = fields.get(`${prefix}${bucket}`);
    if (packed === undefined || packed.length < 16)
      throw new Error(`the rate-limit hash lacks bucket ${prefix}${bucket}`);
    const count = figure(packed, 0);
    out.buckets.set(bucket, count);
    out.total += count;
    const next = figure(packed, 1);
    // The script links buckets in ascending order; anything else is a damaged hash, not a loop to follow.
    if (next <= bucket || next > newest)
      throw new Error(`the rate-limit hash links bucket ${prefix}${bucket} out of order`);
    bucket = next;
  }
  out.buckets.set(newest, newestCount);
  out.total += newestCount;
  out.newest = newest;
  return out;
}

/**
 * A subject's state from its hash, for the domain to read: its windows and the end of its ban. The
 * strikes towards a ban are left out: a peek reports them nowhere.
 */
export function subjectStateOf(hash: readonly Buffer[]): SubjectState {
  const fields = new Map<string, Buffer>();
  for (let i = 0; i + 1 < hash.length; i += 2)
    fields.set((hash[i] as Buffer).toString('latin1'), hash[i + 1] as Buffer);
  const state = fields.get('s');
  if (state === undefined) return newSubjectState();
  if (state.length !== 8 * STATE_FIGURES) throw new Error('the rate-limit hash holds a malformed state');
  return {
    minute: windowOf(fields, 'm', state, 2),
    day: windowOf(fields, 'd', state, 6),
    ban: { ...newSubjectState().ban, bannedUntilMs: figure(state, 10) },
  };
}

/** The standing of a subject from the reply of PEEK_SCRIPT in its Buffer form: {time, [field, value, ...]}. */
export function standingOfReply(reply: unknown, policy: RateLimitPolicy): RateLimitStanding {
  const [nowMs, hash] = Array.isArray(reply) ? reply : [];
  if (typeof nowMs !== 'number' || !Array.isArray(hash)) throw new Error('the rate-limit peek answered no state');
  return standingOf(subjectStateOf(hash), policy, nowMs);
}
