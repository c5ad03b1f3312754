/** The middle value (the upper one of an even count): one noisy round cannot move it far. */
export const median = (values: readonly number[]): number => {
  if (values.length === 0) throw new RangeError('the median of no values');
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
};

/**
 * The nearest-rank percentiles `ps` (0 to 100) of `values`, sorted once: for each p, the smallest value
 * that at least p % of them do not exceed. p50 is the median; p99 of fewer than 100 values is the largest.
 */
export function percentiles(values: ArrayLike<number>, ps: readonly number[]): number[] {
  if (values.length === 0) throw new RangeError('percentiles of no values');
  const sorted = Float64Array.from(values).sort();
  return ps.map((p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number);
}

/** A count with thousands separators, rounded: `12,345`. */
export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** A ratio with two decimals: `0.83`. */
export const ratio = (n: number): string => n.toFixed(2);

/** Milliseconds, with two decimals below 1 ms and one below 10 ms. */
export const ms = (n: number): string => (n < 1 ? n.toFixed(2) : n < 10 ? n.toFixed(1) : count(n));

/** MiB from bytes, whole. */
export const mib = (bytes: number): string => count(bytes / 2 ** 20);

/** The runs of a figure, in the order measured, for the tables' last column. */
export const runs = (values: readonly number[], format: (n: number) => string = count): string =>
  values.map(format).join(', ');

/** A markdown table of a header row and body rows, its columns padded to one width as Biome formats them. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
