import uPlot from 'uplot';
import type { Change } from './console-state.js';

/**
 * The axis's ticks (seconds since the epoch) as the person's local times: hours and minutes, seconds
 * when the ticks are closer than a minute, and the date too when they span more than a day.
 */
function localTimes(ticks: readonly number[]): string[] {
  const first = ticks[0] ?? 0;
  const last = ticks[ticks.length - 1] ?? first;
  const step = ticks.length > 1 ? (last - first) / (ticks.length - 1) : 60;
  const options: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
  if (step < 60) options.second = '2-digit';
  if (last - first > 86_400) Object.assign(options, { day: 'numeric', month: 'short' });
  return ticks.map((tick) => new Date(tick * 1000).toLocaleString(undefined, options));
}

/**
 * The chart of one pet's quantity over time, drawn from its history: the quantity before the oldest
 * change listed, then after each one, as steps (a count holds until the next change). Made again only
 * when the history changes, so a redraw of the page leaves it be.
 */
export class QuantityChart {
  private plot: uPlot | undefined;
  private drawn: readonly Change[] | undefined;

  /** Draws `history` (newest first) into `host`, or removes the chart when there is no host. */
  show(host: HTMLElement | null, history: readonly Change[] | undefined): void {
    if (host === null || history === undefined) {
      this.plot?.destroy();
      this.plot = undefined;
      this.drawn = undefined;
      return;
    }
    if (this.drawn === history && this.plot !== undefined && host.contains(this.plot.root)) return;
    this.plot?.destroy();
    this.drawn = history;
    const oldestFirst = [...history].reverse();
    const times: number[] = [];
    const counts: number[] = [];
    const first = oldestFirst[0];
    if (first !== undefined) {
      // One second before the first change: the quantity it started from.
      times.push(Date.parse(first.at) / 1000 - 1);
      counts.push(first.quantityBefore);
    }
    for (const change of oldestFirst) {
      times.push(Date.parse(change.at) / 1000);
      counts.push(change.quantityAfter);
    }
    this.plot = new uPlot(
      {
        width: Math.min(720, Math.max(200, host.clientWidth || 640)),
        height: 220,
        series: [{}, { label: 'Quantity', stroke: '#1a5fb4', width: 2, paths: uPlot.paths.stepped?.({ align: 1 }) }],
        // Room for a local time under each tick (about 80 px), so that the labels never overlap.
        axes: [{ space: 90, values: (_, ticks) => localTimes(ticks) }, { label: 'Quantity' }],
        legend: { show: false },
      },
      [times, counts],
      host,
    );
  }
}
