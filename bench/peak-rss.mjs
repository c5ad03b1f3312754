// Preloaded (node --import) into a benchmarked program: when it exits, writes its peak RSS in bytes
// and its seconds since start, as JSON, to the file PEAK_RSS_FILE names. Plain JavaScript, so that the
// program runs as an operator runs it, from dist/ without a TypeScript loader adding to its memory.
import { writeFileSync } from 'node:fs';

const file = process.env.PEAK_RSS_FILE;
if (file !== undefined) {
  process.on('exit', () => {
    const run = { seconds: performance.now() / 1000, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
    writeFileSync(file, JSON.stringify(run));
  });
}
