// A private redis-server for the bench (scenario 5): no persistence, `noeviction`, on a unix
// socket in the temp directory, pinned to `cpu` when taskset exists. Never the shared Redis.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import { pinned } from './proc.js';

/**
 * Resolves `{ socket, stop() }`, or `{ skipped: reason }` when redis-server is missing or fails.
 * `name` tells apart the servers one process starts (the socket's name).
 */
export async function startRedis({ cpu, name = 'bench' } = {}) {
  const which = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (which.status !== 0) return { skipped: 'redis-server is not installed' };
  const socket = `${os.tmpdir()}/messaging-webhooks-${name}-${process.pid}.sock`;
  rmSync(socket, { force: true });
  const command = [
    'redis-server',
    '--port',
    '0',
    '--unixsocket',
    socket,
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
  ];
  const proc =
    pinned && cpu !== undefined
      ? spawn('taskset', ['-c', String(cpu), ...command], { stdio: 'ignore' })
      : spawn(command[0], command.slice(1), { stdio: 'ignore' });
  for (let i = 0; i < 50 && !existsSync(socket); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const handle = {
    socket,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((resolve) => (proc.exitCode === null ? proc.once('exit', resolve) : resolve()));
      rmSync(socket, { force: true });
    },
  };
  if (!existsSync(socket)) {
    await handle.stop();
    return { skipped: 'redis-server did not start' };
  }
  return handle;
}
