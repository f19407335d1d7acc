// Scenario 3: what one remembered eventId costs in the default in-memory dedupe store, and the
// time one check takes (workers/dedupe-memory.js, run with --expose-gc; method there).
import { fixed, table } from '../lib/table.js';

export async function run(bench) {
  const { startWorker, stop, target, log } = bench;
  log('default in-memory store, 100 000 keys');
  const proc = await startWorker('workers/dedupe-memory.js', { cpu: 'server', nodeArgs: ['--expose-gc'] });
  const memory = await proc.call('memory', {}, 120_000);
  const checks = await proc.call('checks', {}, 120_000);
  await stop(proc);
  log(
    table(
      ['measure', 'value'],
      [
        [
          'bytes per remembered eventId (store filled to 100_000)',
          fixed(memory.bytesPerRememberedEventId, 1),
        ],
        [
          'bytes per remembered eventId (after another 100_000, evicting)',
          fixed(memory.bytesPerRememberedEventIdAfterEviction, 1),
        ],
        ['  of which preallocated by the empty store, per slot', fixed(memory.preallocatedBytesPerSlot, 1)],
        ['  the same keys in a plain Set (key strings + hash table)', fixed(memory.plainSetBytesPerKey, 1)],
        ['ns per check, new key (miss + insert + eviction)', fixed(checks.nsPerNewKeyClaim, 0)],
        ['ns per check, duplicate key (hit)', fixed(checks.nsPerDuplicateClaim, 0)],
        ['ns to build the key from a parsed payload (identity + SHA-256)', fixed(checks.nsPerKeyBuild, 0)],
        ['ns per SHA-256 digest of a session identity', fixed(checks.nsPerSessionDigest, 0)],
      ],
    ),
  );
  const worst = Math.max(memory.bytesPerRememberedEventId, memory.bytesPerRememberedEventIdAfterEviction);
  target(
    'bytes per remembered eventId (default store size)',
    worst,
    '≤ 200',
    worst <= 200,
    `filled ${fixed(memory.bytesPerRememberedEventId, 1)}, after eviction churn ${fixed(memory.bytesPerRememberedEventIdAfterEviction, 1)}`,
  );
  return { memory, checks };
}
