import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The built CLI (CI builds before testing; locally run `npm run build` first). */
const CLI = fileURLToPath(new URL('../../dist/cli/index.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before these tests`);
}

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A stack trace line, which the CLI must never print. */
export const STACK_LINE = /^\s+at .+\(.+:\d+:\d+\)|^\s+at .+:\d+:\d+$/m;

/** Starts the CLI as a child process (non-TTY stdout). */
export function spawnCli(args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NODE_OPTIONS: '', FORCE_COLOR: '0' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Resolves when the child exits; kills it and rejects after `timeoutMs`. */
export function waitForExit(child: ChildProcessWithoutNullStreams, timeoutMs = 20_000): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not exit within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs the CLI to completion, bounded by `timeoutMs`. */
export function runCli(args: readonly string[], timeoutMs = 20_000): Promise<CliRun> {
  return waitForExit(spawnCli(args), timeoutMs);
}

/** Resolves with the first stdout match of `pattern`; rejects after `timeoutMs` or if the child exits first. */
export function waitForOutput(
  child: ChildProcessWithoutNullStreams,
  pattern: RegExp,
  timeoutMs = 10_000,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer | string): void => {
      seen += chunk.toString();
      const match = seen.match(pattern);
      if (match) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`CLI exited (${String(code)}) before printing ${String(pattern)}:\n${seen}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${String(pattern)} within ${timeoutMs} ms:\n${seen}`));
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** A port nothing listens on: bound once by the OS, then released. */
export function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
