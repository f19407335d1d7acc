// Child processes for the bench: each pinned to one CPU with taskset when it exists, talking to
// the orchestrator over an IPC channel (request/answer messages matched by id).
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const HAS_TASKSET = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;

/** True when children are pinned to CPUs. */
export const pinned = HAS_TASKSET;

/** The CPU of the servers under test and in-process measurements. */
export const SERVER_CPU = 0;
/** The CPU of the load generators, the emulator's processes and the private redis-server. */
export const LOAD_CPU = 1;

/**
 * Starts `script` (a path relative to bench/) in its own node process, pinned to `cpu`.
 * Resolves once the child has sent its first message (`{ ready: true, ... }`).
 */
export function startChild(script, { cpu, args = [], nodeArgs = [], name = script } = {}) {
  const path = fileURLToPath(new URL(`../${script}`, import.meta.url));
  const command = [...nodeArgs, path, ...args];
  const child =
    HAS_TASKSET && cpu !== undefined
      ? spawn('taskset', ['-c', String(cpu), process.execPath, ...command], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        })
      : spawn(process.execPath, command, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let nextId = 1;
  const waiting = new Map();
  let exited = false;
  const exit = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      for (const { reject } of waiting.values()) {
        reject(new Error(`${name} exited (${code ?? signal}) before answering`));
      }
      waiting.clear();
      resolve({ code, signal });
    });
  });
  const ready = new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code, signal) =>
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready`)),
    );
  });
  child.on('message', (message) => {
    if (message && message.id !== undefined && waiting.has(message.id)) {
      const { resolve, reject } = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) reject(new Error(`${name}: ${message.error}`));
      else resolve(message.result);
    }
  });
  return ready.then((hello) => ({
    hello,
    pid: child.pid,
    /** Sends a command; resolves with the child's answer. */
    call(command, payload = {}, timeoutMs = 60_000) {
      if (exited) return Promise.reject(new Error(`${name} has exited`));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`${name}: no answer to ${command} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(id, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        child.send({ id, command, ...payload });
      });
    },
    /** Stops the child (SIGTERM, then SIGKILL after a second); resolves when it has exited. */
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!exited) child.kill('SIGKILL');
      }, 1000);
      await exit;
      clearTimeout(timer);
    },
  }));
}

/** In a child: answers the orchestrator's commands with `handlers[command](message)`. */
export function serveCommands(handlers) {
  process.on('message', (message) => {
    const handler = handlers[message.command];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown command ${message.command}`);
        return handler(message);
      })
      .then(
        (result) => process.send({ id: message.id, result }),
        (error) => process.send({ id: message.id, error: String(error?.stack ?? error) }),
      );
  });
  // The orchestrator going away (crash, Ctrl-C) must not leave a server or load generator behind.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
