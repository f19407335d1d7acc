#!/usr/bin/env node
/**
 * The `messaging-webhooks` command line: `demo`, `emulator`, `replay`, `validate`, `openapi` and
 * `dlq` (see program.ts).
 * Bad input (a missing file, an unreachable URL, a bad argument) ends with one `error:` line
 * and a non-zero exit, never a stack trace.
 *
 * @packageDocumentation
 */
import { main } from './program.js';
import { messageOf, printableIo, processIo } from './output.js';

const terminal = processIo();
// The bin's own lines, escaped as main escapes every command's.
const io = printableIo(terminal);
// The reader went away (`messaging-webhooks emulator | head`): stop quietly, as Unix tools do,
// instead of dying on an unhandled EPIPE with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
process.on('unhandledRejection', (reason) => {
  io.err(`error: ${messageOf(reason)}`);
  process.exit(1);
});
main(process.argv, terminal).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    io.err(`error: ${messageOf(error)}`);
    process.exitCode = 1;
  },
);
