import { parseArgs } from 'node:util';
import { formatSoakReport } from './report.js';
import { runSoak } from './soak.js';

/** `npm run soak -- --minutes N`: exits 1 with the report when a check fails, 2 on bad arguments. */
const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' } } });
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes < 1 || minutes > 120) {
  console.error(`--minutes must be a number from 1 to 120, not ${values.minutes}`);
  process.exit(2);
}
console.log(`Soak: ${minutes} min, 2 instances behind nginx on PostgreSQL and Redis, all on 127.0.0.1`);
const report = await runSoak({ durationMs: minutes * 60_000 });
console.log(formatSoakReport(report));
process.exitCode = report.failures.length === 0 ? 0 : 1;
