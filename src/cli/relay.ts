/**
 * `messaging-webhooks relay` (deployed where the platform reaches it) and `messaging-webhooks
 * listen --relay <url> --forward-to <local app>` (on the developer's machine): see
 * src/relay/index.ts.
 */
import type { AddressInfo } from 'node:net';
import {
  createRelay,
  createRelayListener,
  createRelayServer,
  RELAY_PATHS,
  type ForwardReport,
  type RelayListenerStats,
} from '../relay/index.js';
import { maskUrl } from '../util/secrets.js';
import { CliError, messageOf, type CliIo } from './output.js';

/** Options of `relay` (parsed by commander). */
export interface RelayCommandOptions {
  readonly port: number;
  readonly host: string;
  readonly secret: string;
  readonly token?: string | undefined;
  readonly basePath?: string | undefined;
  readonly maxBuffered: number;
}

/** Options of `listen` (parsed by commander). */
export interface ListenCommandOptions {
  readonly relay: string;
  readonly secret: string;
  readonly forwardTo: string;
  readonly token?: string | undefined;
  readonly capture?: string | undefined;
  readonly concurrency: number;
  readonly json?: boolean | undefined;
}

/** Starts the relay on a Node server; resolves with a function that stops it. */
export async function relayCommand(options: RelayCommandOptions, io: CliIo): Promise<() => Promise<void>> {
  let relay;
  try {
    relay = createRelay({
      secret: options.secret,
      token: options.token ?? false,
      basePath: options.basePath,
      maxBuffered: options.maxBuffered,
    });
  } catch (error) {
    throw new CliError(messageOf(error), 1, { cause: error });
  }
  const server = createRelayServer(relay);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          error.code === 'EADDRINUSE'
            ? `port ${options.port} on ${options.host} is already in use`
            : messageOf(error),
          1,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const base = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const hooks = `${base}${options.basePath ?? ''}`;
  io.out(`Relay listening on ${base}`);
  io.out(
    `Webhook URLs for the platform (behind your public address): ${hooks}/incoming, /status, /session, /events, /chatbot` +
      (options.token === undefined
        ? ' (no token: any request is accepted; give --token)'
        : ' with ?token=<--token>'),
  );
  io.out(
    `Listener stream: ${base}${RELAY_PATHS.events} (Authorization: Bearer <--secret>); buffers up to ${options.maxBuffered} events`,
  );
  io.out(
    `On your machine: messaging-webhooks listen --relay <public URL> --secret <secret> --forward-to http://localhost:3000/webhooks`,
  );
  return async () => {
    await relay.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const stats = relay.stats();
    io.out(
      `Relay stopped: ${stats.received} received, ${stats.acknowledged} acknowledged, ${stats.buffered} still buffered, ${stats.dropped} dropped`,
    );
  };
}

function reportLine(report: ForwardReport): string {
  const { record, id } = report.event;
  const outcome =
    report.status === undefined
      ? `no answer (${report.error ?? 'error'})`
      : `${report.status}${report.duplicate ? ' duplicate' : ''}${report.error === undefined ? '' : ` (${report.error})`}`;
  const retry = report.willRetry ? `; retrying (attempt ${report.attempt})` : '';
  return `#${id} ${(record.type ?? '?').padEnd(8)} → ${maskUrl(report.url)}  ${outcome} ${report.latencyMs} ms${retry}`;
}

/** Runs the listener until `stopped` resolves; resolves with its counts. */
export async function listenCommand(
  options: ListenCommandOptions,
  io: CliIo,
  stopped: Promise<unknown>,
): Promise<RelayListenerStats> {
  const listener = createRelayListener({
    relay: options.relay,
    secret: options.secret,
    forwardTo: options.forwardTo,
    token: options.token,
    capture: options.capture,
    concurrency: options.concurrency,
    onNotice: (notice) => io.err(notice),
    onForward: (report) =>
      io.out(
        options.json === true
          ? JSON.stringify({
              id: report.event.id,
              type: report.event.record.type,
              path: report.event.record.path,
              requestId: report.event.requestId,
              status: report.status ?? null,
              duplicate: report.duplicate,
              latencyMs: report.latencyMs,
              attempt: report.attempt,
              error: report.error ?? null,
              willRetry: report.willRetry,
            })
          : reportLine(report),
      ),
  });
  const outcome = await Promise.race([
    listener.done.then(
      () => 'ended' as const,
      (error: unknown) => {
        throw new CliError(messageOf(error), 1, { cause: error });
      },
    ),
    stopped.then(() => 'stopped' as const),
  ]);
  await listener.stop();
  const stats = listener.stats();
  io.err(
    `${outcome === 'stopped' ? 'Stopped' : 'Ended'}: ${stats.received} received, ${stats.forwarded} forwarded, ` +
      `${stats.answered} answered (${stats.duplicates} duplicates), ${stats.failed} failed, ${stats.acknowledged} acknowledged` +
      (options.capture === undefined ? '' : `; captured to ${options.capture}`),
  );
  return stats;
}
