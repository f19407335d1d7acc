// Scenario 10 (part of scenario 1 before the bench was split): where the receiver's time goes,
// the pipeline driven in-process without sockets, one stage added at a time (workers/stages.js;
// method there), in CPU µs per request, the least of 5 interleaved repetitions. Two what-ifs
// price proposed changes through the pipeline's own options, src/ untouched: a logger that costs
// nothing, and a minimal in-memory dispatcher without p-queue. Reported, no target.
import { WEBHOOK_TYPES } from '../lib/bodies.js';
import { fixed, table } from '../lib/table.js';

export async function run(bench) {
  const { startWorker, stop, log, quick } = bench;
  log('CPU µs per request, no sockets; least of 5 interleaved repetitions');
  const proc = await startWorker('workers/stages.js', { cpu: 'server' });
  const stages = await proc.call('stages', { count: quick ? 1000 : 2000 }, 300_000);
  await stop(proc);
  log(
    table(
      [
        'type',
        'JSON.parse',
        'zod validate',
        'head()',
        'head+accept, no callback',
        '+ enqueue & run',
        '+ dedupe',
        'total',
        'total, free logger',
        'total, plain dispatcher',
      ],
      WEBHOOK_TYPES.map((type) => {
        const s = stages[type];
        return [
          type,
          fixed(s.jsonParse, 1),
          fixed(s.validate, 1),
          fixed(s.head, 1),
          fixed(s.acceptNoCallback, 1),
          fixed(s.acceptDedupeOff - s.acceptNoCallback, 1),
          fixed(s.acceptFull - s.acceptDedupeOff, 1),
          fixed(s.acceptFull, 1),
          fixed(s.acceptFreeLogger, 1),
          fixed(s.acceptPlainDispatcher, 1),
        ];
      }),
    ),
  );
  log(
    `(what-ifs, src/ untouched: "free logger" passes a logger whose child() and levels cost nothing; ` +
      `"plain dispatcher" a minimal in-memory dispatcher without p-queue, same ordering. ` +
      `One pino child logger alone, as the callback context makes per job: ${fixed(stages.childLogger, 1)} µs)`,
  );
  return stages;
}
