// The server of part 3 (reliability/slow-clients.js), in its own process: the node handler with
// bodyTimeoutMs 2 000; reports its port, answers 'stats' with its counters.
import { createNodeHandler } from '../../dist/index.js';
import { listen } from './common.js';

const handler = createNodeHandler({ basePath: '/hooks', bodyTimeoutMs: 2000, onChatbot: () => {} });
const { port } = await listen(handler);
process.send({ port });
process.on('message', async (message) => {
  if (message === 'stats') process.send({ stats: handler.stats().total });
});
process.on('disconnect', () => process.exit(0));
