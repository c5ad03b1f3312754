// The import time of two builds' core, in fresh processes, the builds alternated and their order
// swapped every round; prints the medians and their ratio.
// Usage: node bench/import-time.mjs <earlier dist> <this dist> [processes each, default 21]
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const [earlier, current, rounds = '21'] = process.argv.slice(2);
if (earlier === undefined || current === undefined)
  throw new Error('usage: import-time.mjs <earlier dist> <this dist> [n]');
const builds = { earlier: join(resolve(earlier), 'index.js'), this: join(resolve(current), 'index.js') };
const times = { earlier: [], this: [] };
for (let i = 0; i < Number(rounds); i += 1) {
  const order = i % 2 === 0 ? Object.entries(builds) : Object.entries(builds).reverse();
  for (const [name, path] of order) {
    const script = `const t = performance.now(); await import(${JSON.stringify(path)}); console.log(performance.now() - t);`;
    times[name].push(Number(execFileSync(process.execPath, ['--input-type=module', '-e', script])));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const [a, b] = [median(times.earlier), median(times.this)];
console.log(
  `earlier ${a.toFixed(1)} ms, this ${b.toFixed(1)} ms, this / earlier ${(b / a).toFixed(2)} (${rounds} processes each)`,
);
