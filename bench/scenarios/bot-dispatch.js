// Scenario 16: what the bot's handler API costs per event (bot-dispatch-worker.js; method there):
// one chatbot event through a bot with two pass-on middlewares and 20 filters tested (one
// matching) against the same work in a single onChatbot callback, both through the receiver's
// in-memory dispatcher and job runner, many distinct conversations, interleaved in one run.
//
//   bot − callback, CPU µs per event                                        target ≤ 1.00 µs
//
// Reported beside it: the same bot with two async middlewares (V8's async functions cost the
// user a promise and a turn each), and with an in-memory session (a read and a write per event).
// The request path (the receiver's acknowledgement) runs no bot code: a bot is its callbacks.
import { fixed, ratio, table } from '../lib/table.js';

/** Extra CPU µs per event the handler API may cost over a single callback. */
const LIMIT_US = 1;

export async function run(bench) {
  const { startWorker, stop, target, log, quick } = bench;
  const events = quick ? 5_000 : 20_000;
  log(`${events} events per round, each of its own conversation; least of the interleaved rounds`);
  const worker = await startWorker('scenarios/bot-dispatch-worker.js', { cpu: 'server' });
  const measured = await worker.call('measure', { events, rounds: quick ? 3 : 9 }, 300_000);
  await stop(worker);
  log(
    table(
      ['variant', 'CPU µs per event', '− callback', '÷ callback'],
      [
        ['single onChatbot callback', fixed(measured.callbackUs, 2), '-', '-'],
        [
          'bot: 2 middlewares, 20 filters',
          fixed(measured.botUs, 2),
          fixed(measured.differenceUs, 2),
          ratio(measured.botUs / measured.callbackUs),
        ],
        [
          '  with async middlewares',
          fixed(measured.botAsyncUs, 2),
          fixed(measured.asyncDifferenceUs, 2),
          ratio(measured.botAsyncUs / measured.callbackUs),
        ],
        [
          '  + in-memory session',
          fixed(measured.botSessionUs, 2),
          fixed(measured.sessionDifferenceUs, 2),
          ratio(measured.botSessionUs / measured.callbackUs),
        ],
      ],
    ),
  );
  target(
    'bot: 2 middlewares + 20 filters − single callback, CPU µs per event',
    measured.differenceUs,
    `≤ ${LIMIT_US.toFixed(2)}`,
    measured.differenceUs <= LIMIT_US,
    `${fixed(measured.botUs, 2)} against ${fixed(measured.callbackUs, 2)} µs; async middlewares ${fixed(measured.asyncDifferenceUs, 2)}, a memory session ${fixed(measured.sessionDifferenceUs, 2)} µs more`,
  );
  return measured;
}
