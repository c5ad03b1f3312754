// Preloaded (node --import) into a benchmarked program: when it exits, writes its peak RSS in bytes
// and its seconds since start, as JSON, to the file PEAK_RSS_FILE names. Plain JavaScript, so that the
// program runs as an operator runs it, from dist/ without a TypeScript loader adding to its memory.
//
// The peak is VmHWM of /proc/self/status, which starts afresh with the program. Not
// process.resourceUsage().maxRSS: on Linux a child's ru_maxrss starts from its parent's resident set
// at the fork, so every program spawned by a large benchmark process reported that process's size.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.PEAK_RSS_FILE;

/** VmHWM in bytes; off Linux, the rusage figure, with the caveat above. */
function peakRssBytes() {
  try {
    const line = readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmHWM:'));
    if (line !== undefined) return Number(line.replace(/\D+/g, '')) * 1024;
  } catch {
    // No /proc: fall through.
  }
  return process.resourceUsage().maxRSS * 1024;
}

if (file !== undefined) {
  process.on('exit', () => {
    writeFileSync(file, JSON.stringify({ seconds: performance.now() / 1000, peakRssBytes: peakRssBytes() }));
  });
}
