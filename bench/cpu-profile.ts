import { readFile } from 'node:fs/promises';

/** The parts of a V8 .cpuprofile (what `node --cpu-prof` writes) that the summary reads. */
interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A span of the monotonic clock in microseconds: the profiler's own clock, and `process.hrtime` on Linux. */
export interface Window {
  readonly fromUs: number;
  readonly toUs: number;
}

/** Now on the clock the V8 profiler stamps its samples with. */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

export interface Share {
  readonly name: string;
  readonly ms: number;
  /** Of the busy time: every sample but (idle). */
  readonly share: number;
}

export interface ProfileSummary {
  /** Whether the samples could be cut to the window; if not, the whole profile is summed. */
  readonly windowed: boolean;
  readonly busyMs: number;
  /** Self time by where the code lives (a package, the service's own code, Node's core, GC), every place. */
  readonly byPlace: readonly Share[];
  /** The functions with the most self time. */
  readonly topSelf: readonly Share[];
  /** The service's own functions (dist/) by inclusive time: their own and everything they call synchronously. */
  readonly topOwnInclusive: readonly Share[];
}

const MARKERS = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** Where a function lives, for the by-place breakdown. */
function placeOf(functionName: string, url: string): string {
  if (url === '') return MARKERS.has(functionName) ? functionName : '(native code called from JS)';
  if (url.startsWith('node:')) return 'Node.js core (node:*)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (pkg !== undefined) return pkg;
  const own = /\/dist\/(.+)\/[^/]+\.js$/.exec(url)?.[1];
  if (own !== undefined) return `service: dist/${own}`;
  return url;
}

const shortUrl = (url: string): string =>
  url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/');

const frameName = (f: CpuProfile['nodes'][number]['callFrame']): string =>
  f.url === ''
    ? f.functionName || '(anonymous native)'
    : `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}`;

function ranked(totals: Map<string, number>, busyMs: number, most: number): Share[] {
  return [...totals]
    .map(([name, ms]) => ({ name, ms, share: ms / busyMs }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, most);
}

const add = (totals: Map<string, number>, key: string, ms: number): void => {
  totals.set(key, (totals.get(key) ?? 0) + ms);
};

/** The index range of the samples taken within `window`, or all of them if none was (another clock). */
function samplesWithin(profile: CpuProfile, window: Window): { from: number; to: number; windowed: boolean } {
  let at = profile.startTime;
  let from = -1;
  let to = -1;
  for (let i = 0; i < profile.samples.length; i += 1) {
    at += profile.timeDeltas[i] as number;
    if (at < window.fromUs) continue;
    if (at > window.toUs) break;
    if (from === -1) from = i;
    to = i;
  }
  return from === -1 ? { from: 0, to: profile.samples.length - 1, windowed: false } : { from, to, windowed: true };
}

/**
 * Reads a .cpuprofile and sums the time of its samples within `window` (the load, not the start-up) by
 * place and by function.
 */
export async function summariseProfile(file: string, window: Window, most = 12): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const { from, to, windowed } = samplesWithin(profile, window);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

  const place = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busyMs = 0;
  // A sample's time is the gap to the next sample.
  for (let i = from; i < to; i += 1) {
    const node = byId.get(profile.samples[i] as number);
    if (node === undefined) continue;
    const ms = (profile.timeDeltas[i + 1] as number) / 1000;
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)') continue;
    busyMs += ms;
    add(place, placeOf(functionName, url), ms);
    add(self, frameName(node.callFrame), ms);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = (byId.get(id) as CpuProfile['nodes'][number]).callFrame;
      if (!frame.url.includes('/dist/')) continue;
      const name = frameName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, ms);
    }
  }
  return {
    windowed,
    busyMs,
    byPlace: ranked(place, busyMs, place.size),
    topSelf: ranked(self, busyMs, most),
    topOwnInclusive: ranked(inclusive, busyMs, most),
  };
}
