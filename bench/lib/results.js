// Where the bench's programs write what they measured: bench/results/<prefix><timestamp>.json
// (git-ignored), one file per run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

/** Writes `results` as JSON; returns the file's path. `startedAt` is an ISO timestamp. */
export function writeResults(results, { prefix = '', startedAt }) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${RESULTS_DIR}${prefix}${startedAt.replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}
