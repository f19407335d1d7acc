// A first test under jest's default setup (CommonJS, no config): jest's module system cannot
// require() the package's ES modules, so this suite fails, with the error main.js checks.
const { createEmulator } = require('messaging-webhooks/emulator');

test('the emulator starts', async () => {
  const emulator = createEmulator();
  await emulator.listen();
  await emulator.close();
});
