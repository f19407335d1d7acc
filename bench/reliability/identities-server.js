// The server of part 4 (reliability/identities.js), in its own process (--max-old-space-size=128
// --expose-gc): the node handler, with its defaults or (`--plain`) without dedupe and delivery
// tracking; reports its port and heap, answers 'measure' with the heap after GC, callbacks run
// and its counters.
import { createNodeHandler } from '../../dist/index.js';
import { listen, MiB } from './common.js';

// argv[2]: a JSON config `{ plain }`, as bench/servers/serve.js takes its own.
const { plain = false } = JSON.parse(process.argv[2] ?? '{}');
const heap = () => {
  for (let i = 0; i < 4; i += 1) globalThis.gc();
  return process.memoryUsage().heapUsed;
};
let ran = 0;
const handler = createNodeHandler({
  basePath: '/hooks',
  bodyLimit: MiB,
  ...(plain ? { dedupe: false, statusTracking: false } : {}),
  onChatbot: () => {
    ran += 1;
  },
  onStatus: () => {
    ran += 1;
  },
});
const { port } = await listen(handler);
const before = heap();
process.send({ port, before });
process.on('message', async (message) => {
  if (message !== 'measure') return;
  await handler.idle();
  const after = heap();
  process.send({ after, ran, stats: handler.stats().total, heapLimit: process.constrainedMemory?.() });
});
process.on('disconnect', () => process.exit(0));
