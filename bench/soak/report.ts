import { RSS_GROWTH_LIMIT } from './checks.js';
import { GRACE_MS } from './faults.js';
import type { SoakReport } from './soak.js';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The soak's summary as text: requests by status, faults and their windows, RSS figures, then the verdict. */
export function formatSoakReport(report: SoakReport): string {
  const lines: string[] = [`Soak of ${seconds(report.durationMs)}`, '', 'Requests by kind and status:'];
  const counts = new Map<string, number>();
  for (const a of report.answers) {
    const key = `${a.kind} ${a.status || 'no answer'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, count] of [...counts].sort(([a], [b]) => a.localeCompare(b))) lines.push(`  ${key}: ${count}`);
  const { adjustments, batches, commits } = report.acknowledgedKeyed;
  lines.push(
    `  total: ${report.answers.length}; acknowledged: ${report.acknowledged} PATCHes, ${adjustments} adjustments, ` +
      `${batches} batches, ${commits} reservation commits`,
  );
  lines.push(`History entries checked: ${report.changesChecked}`);
  lines.push('', `Faults (window: the fault's start to ${seconds(GRACE_MS)} after its recovery):`);
  for (const w of report.windows) {
    const inside = report.answers.filter(
      (a) => (a.status === 0 || a.status >= 500) && a.startMs <= w.endMs && a.endMs >= w.startMs,
    ).length;
    lines.push(
      `  ${w.kind}: ${seconds(w.startMs)} to ${seconds(w.endMs)} (recovered after ${seconds(w.recoveredMs - w.startMs)}); 5xx or no answer in it: ${inside}`,
    );
  }
  lines.push('', `RSS per process (limit: growth < ${RSS_GROWTH_LIMIT * 100} %):`);
  for (const f of report.rss) {
    lines.push(
      `  instance ${f.instance + 1} pid ${f.pid}, lived ${seconds(f.lifeMs)}: ${f.baselineKib} -> ${f.peakKib} KiB (${(f.growth * 100).toFixed(1)} %, ${f.rule})`,
    );
  }
  lines.push('');
  if (report.failures.length === 0) lines.push('PASS: every check held.');
  else lines.push(`FAIL: ${report.failures.length} check(s) failed:`, ...report.failures.map((f) => `  - ${f}`));
  return lines.join('\n');
}
