import type { Registry } from 'prom-client';

type Labels = Readonly<Record<string, string>>;

/** One series of a histogram, found once and then observed with no label hashing. */
export class HistogramSeries {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Labels,
  ) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i += 1) {
      if (value <= (bounds[i] as number)) {
        this.counts[i] = (this.counts[i] as number) + 1;
        return;
      }
    }
  }

  /** The series' samples as prom-client writes a histogram's: cumulative buckets, +Inf, sum and count. */
  samples(name: string): { labels: Record<string, string | number>; value: number; metricName: string }[] {
    let cumulative = 0;
    const buckets = this.bounds.map((le, i) => {
      cumulative += this.counts[i] as number;
      return { labels: { le, ...this.labels }, value: cumulative, metricName: `${name}_bucket` };
    });
    return [
      ...buckets,
      { labels: { le: '+Inf', ...this.labels }, value: this.count, metricName: `${name}_bucket` },
      { labels: { ...this.labels }, value: this.sum, metricName: `${name}_sum` },
      { labels: { ...this.labels }, value: this.count, metricName: `${name}_count` },
    ];
  }
}

/**
 * A histogram for the hot path. prom-client's own hashes the label values on every observation (about a
 * microsecond, several per request); here a caller finds its series once, by a key of its own, and each
 * observation is a few additions. The registry writes it like any of its metrics: it answers the same
 * `get()` that prom-client's histograms do.
 */
export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, HistogramSeries>();
  /** The series found by seriesOfParts, by their parts: forgotten with the series at a reset. */
  private readonly byParts = new Map<string, Map<string, Map<number, HistogramSeries>>>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    // The registry takes any object that answers get() and reset() the way its metrics do.
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The series of `labels`, made at its first use; `key` must be unique to those labels. */
  seriesOf(key: string, labels: Labels): HistogramSeries {
    let series = this.series.get(key);
    if (series === undefined) {
      series = new HistogramSeries(this.bounds, labels);
      this.series.set(key, series);
    }
    return series;
  }

  /**
   * The series of the labels named by two words and a number (`first second third`, the key
   * seriesOf is given), found without building that key: each a map's lookup, none allocating, where
   * the key's text and the labels' object were written on every call. `labels` makes the series'
   * labels at its first use.
   */
  seriesOfParts(
    first: string,
    second: string,
    third: number,
    labels: (first: string, second: string, third: number) => Labels,
  ): HistogramSeries {
    let seconds = this.byParts.get(first);
    if (seconds === undefined) {
      seconds = new Map();
      this.byParts.set(first, seconds);
    }
    let thirds = seconds.get(second);
    if (thirds === undefined) {
      thirds = new Map();
      seconds.set(second, thirds);
    }
    let series = thirds.get(third);
    if (series === undefined) {
      series = this.seriesOf(`${first} ${second} ${third}`, labels(first, second, third));
      thirds.set(third, series);
    }
    return series;
  }

  get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: [...this.series.values()].flatMap((s) => s.samples(this.name)),
    };
  }

  reset(): void {
    this.series.clear();
    this.byParts.clear();
  }
}
