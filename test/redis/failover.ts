// The failover scenario shared by the Redis Cluster and Sentinel tests: two receiver instances
// (in this process, each with its own dedupe store and BullMQ dispatcher) take a burst of
// conversations, every event delivered to both (a duplicate per event) by a sender that retries
// anything but a 200, as the platform does; a fault hits the primary in the middle; then workers
// drain the queues and every run is counted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Cluster, Redis } from 'ioredis';
import { pino } from 'pino';
import { createNodeHandler, type NodeWebhookHandler } from '../../src/index.js';
import {
  createBullMQDispatcher,
  createRedisDedupeStore,
  createWorker,
  type BullMQDispatcher,
  type RedisConnection,
  type ReplicaAckOptions,
  type WebhookWorker,
} from '../../src/redis/index.js';
import { chatbotEvent, pool, post, uniqueName, waitFor } from './helpers.js';
import { command, type RedisNode } from './servers.js';

const silent = pino({ level: 'silent' });

/** The queue topology and dedupe prefix every part of one scenario shares. */
export interface ScenarioTopology {
  readonly queueName: string;
  readonly partitions: number;
  /** BullMQ prefix. @default 'bull' */
  readonly prefix?: string;
  readonly dedupePrefix: string;
}

/** A receiver instance behind node:http on a port of its own. */
export interface ReceiverInstance {
  readonly port: number;
  readonly handler: NodeWebhookHandler;
  readonly dispatcher: BullMQDispatcher;
  close(): Promise<void>;
}

/** Starts a receiver: the Redis dedupe store and the BullMQ dispatcher on `connection`. */
export async function startReceiverInstance(
  connection: RedisConnection,
  topology: ScenarioTopology,
  waitForReplicas?: ReplicaAckOptions,
): Promise<ReceiverInstance> {
  const store = createRedisDedupeStore({ connection, prefix: topology.dedupePrefix, logger: silent });
  const dispatcher = createBullMQDispatcher({
    connection,
    queueName: topology.queueName,
    partitions: topology.partitions,
    prefix: topology.prefix,
    logger: silent,
    ...(waitForReplicas === undefined ? {} : { waitForReplicas }),
  });
  const handler = createNodeHandler({
    onChatbot: () => undefined, // declares the type: it is enqueued, the workers run it
    dedupe: { store },
    dispatcher,
    retryAfterSeconds: 1,
  });
  await Promise.all([store.ready(), dispatcher.ready()]);
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    handler,
    dispatcher,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handler.close(2000);
    },
  };
}

/** Runs of each event, in the order the callbacks ran, across every worker of the scenario. */
export interface RunLog {
  readonly order: string[];
  readonly counts: Map<string, number>;
}

export function createRunLog(): RunLog {
  return { order: [], counts: new Map() };
}

/** A worker recording each run in `log` (in this process, so counting needs no Redis). */
export function startRecordingWorker(
  connection: RedisConnection,
  topology: ScenarioTopology,
  log: RunLog,
): WebhookWorker {
  return createWorker({
    connection,
    queueName: topology.queueName,
    partitions: topology.partitions,
    prefix: topology.prefix,
    logger: silent,
    handlers: {
      onChatbot: (event) => {
        log.order.push(event.eventId);
        log.counts.set(event.eventId, (log.counts.get(event.eventId) ?? 0) + 1);
      },
    },
  });
}

/** One conversation's events, in the order they are sent. */
export interface Conversation {
  readonly participant: string;
  readonly eventIds: readonly string[];
}

export function conversations(label: string, count: number, length: number): Conversation[] {
  return Array.from({ length: count }, (_, c) => ({
    participant: `${label}-c${c}`,
    eventIds: Array.from({ length }, (_, e) => `${label}-c${c}-e${e}`),
  }));
}

/** What the sender saw. */
export interface Delivery {
  /** Events with at least one 200 (their job is in Redis, per the receiver). */
  readonly acked: Set<string>;
  /** Answers per status over every attempt ('error': no HTTP answer). */
  readonly answers: Map<number | 'error', number>;
  /**
   * Answers per status, to the conversations the fault affects, from the primary's death until the
   * first of their events sent since then is accepted.
   */
  readonly answersDuringOutage: Map<number | 'error', number>;
  /** Events given up on at the deadline, never answered 200. */
  readonly unanswered: readonly string[];
  /** Milliseconds from the fault to the first 200 for an event sent after it. */
  readonly recoveredAfterMs: number | undefined;
  /** Whether any event was first sent after the fault began (a fast burst can end before it). */
  readonly sentAfterFault: boolean;
}

/**
 * Sends every conversation, its events one after the other (the next once the previous one got a
 * 200), each event to both receivers at once, each copy retried every `retryMs` until a 200 or the
 * deadline. `fault` is started (not awaited) once `faultAfter` events are acked; the outage is over
 * at the first 200 of an event first sent after the fault began.
 */
export async function deliver(
  receivers: readonly ReceiverInstance[],
  all: readonly Conversation[],
  options: {
    faultAfter?: number;
    fault?: () => Promise<void>;
    /** Whether the outage has begun (the primary is dead); else it begins with `fault`. */
    outageStarted?: () => boolean;
    deadlineMs?: number;
    retryMs?: number;
    /**
     * Whether the fault affects a conversation (its partition is on the failed primary); every one
     * when not given. Others keep being accepted through the outage, so they neither count in it
     * nor end it.
     */
    affects?: (participant: string) => boolean;
  } = {},
): Promise<Delivery & { readonly faultDone: Promise<void> | undefined }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const deadline = Date.now() + (options.deadlineMs ?? 30_000);
  const retryMs = options.retryMs ?? 100;
  const acked = new Set<string>();
  const answers = new Map<number | 'error', number>();
  const answersDuringOutage = new Map<number | 'error', number>();
  const unanswered: string[] = [];
  let faultAt: number | undefined;
  let faultDone: Promise<void> | undefined;
  let recoveredAt: number | undefined;
  let sentAfterFault = false;
  const background: Promise<void>[] = [];

  const count = (map: Map<number | 'error', number>, status: number | 'error'): void => {
    map.set(status, (map.get(status) ?? 0) + 1);
  };

  /** One copy of an event to one receiver, retried until a 200; resolves whether it got one. */
  async function copy(
    receiver: ReceiverInstance,
    participant: string,
    eventId: string,
    firstSentAt: number,
  ): Promise<boolean> {
    for (;;) {
      if (faultAt === undefined && options.outageStarted?.() === true) faultAt = Date.now();
      const { status } = await post(agent, receiver.port, '/chatbot', chatbotEvent(eventId, participant));
      const affected = options.affects?.(participant) ?? true;
      count(answers, status);
      if (affected && faultAt !== undefined && recoveredAt === undefined) count(answersDuringOutage, status);
      if (status === 200) {
        if (!acked.has(eventId)) {
          acked.add(eventId);
          if (affected && faultAt !== undefined && recoveredAt === undefined && firstSentAt > faultAt)
            recoveredAt = Date.now();
          if (
            options.fault !== undefined &&
            faultDone === undefined &&
            acked.size >= (options.faultAfter ?? 0)
          ) {
            if (options.outageStarted === undefined) faultAt = Date.now();
            faultDone = options.fault();
          }
        }
        return true;
      }
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }

  await pool(all, all.length, async (conversation) => {
    for (const [index, eventId] of conversation.eventIds.entries()) {
      const sentAt = Date.now();
      if (faultAt !== undefined && sentAt > faultAt) sentAfterFault = true;
      const first = receivers[index % receivers.length]!;
      const second = receivers[(index + 1) % receivers.length]!;
      let settle!: (ok: boolean) => void;
      const firstOk = new Promise<boolean>((resolve) => (settle = resolve));
      const copies = [first, second].map((receiver) =>
        copy(receiver, conversation.participant, eventId, sentAt).then((ok) => {
          if (ok) settle(true);
          return ok;
        }),
      );
      const both = Promise.all(copies).then((oks) => {
        if (!oks.some(Boolean)) {
          unanswered.push(eventId);
          settle(false);
        }
      });
      background.push(both);
      // The next event of the conversation only once this one is in Redis: its order is defined.
      if (!(await firstOk)) return;
    }
  });
  await Promise.all(background);
  agent.destroy();
  return {
    acked,
    answers,
    answersDuringOutage,
    unanswered,
    recoveredAfterMs: faultAt === undefined || recoveredAt === undefined ? undefined : recoveredAt - faultAt,
    sentAfterFault,
    faultDone,
  };
}

/** What ran, against what was acknowledged. */
export interface Tally {
  readonly acked: number;
  readonly ran: number;
  /** Acked, never ran, and no longer queued: gone. */
  readonly lost: number;
  /** Acked, not run yet, still queued when the drain ended (late, not lost). */
  readonly queued: number;
  readonly twice: number;
  /** Conversations whose events ran out of the order they were sent in. */
  readonly outOfOrder: number;
}

export function tally(
  all: readonly Conversation[],
  delivery: Delivery,
  log: RunLog,
  stillQueued: ReadonlySet<string> = new Set(),
): Tally {
  const position = new Map<string, { participant: string; index: number }>();
  for (const conversation of all) {
    for (const [index, eventId] of conversation.eventIds.entries()) {
      position.set(eventId, { participant: conversation.participant, index });
    }
  }
  const last = new Map<string, number>();
  const disordered = new Set<string>();
  for (const eventId of log.order) {
    const at = position.get(eventId);
    if (at === undefined) continue;
    if ((last.get(at.participant) ?? -1) >= at.index) disordered.add(at.participant);
    last.set(at.participant, at.index);
  }
  return {
    acked: delivery.acked.size,
    ran: log.counts.size,
    lost: [...delivery.acked].filter((eventId) => !log.counts.has(eventId) && !stillQueued.has(eventId))
      .length,
    queued: [...delivery.acked].filter((eventId) => !log.counts.has(eventId) && stillQueued.has(eventId))
      .length,
    twice: [...log.counts.values()].filter((runs) => runs > 1).length,
    outOfOrder: disordered.size,
  };
}

/**
 * Waits until every acked event ran, or the queues have nothing left to run (what is still
 * missing then is lost), at most `timeoutMs`; then a moment more for a late second run to show.
 */
export async function drain(
  dispatcher: BullMQDispatcher,
  delivery: Delivery,
  log: RunLog,
  timeoutMs = 20_000,
): Promise<void> {
  const unfinished = ['waiting', 'active', 'delayed', 'prioritized', 'paused'];
  await waitFor(async () => {
    if ([...delivery.acked].every((eventId) => log.counts.has(eventId))) return true;
    try {
      const counts = await dispatcher.jobCounts();
      return unfinished.every((state) => (counts[state] ?? 0) === 0);
    } catch {
      return false;
    }
  }, timeoutMs);
  await new Promise((resolve) => setTimeout(resolve, 300));
}

/** Event ids of the jobs still waiting, active or delayed in a dispatcher's partition queues. */
async function queuedEventIds(dispatcher: BullMQDispatcher): Promise<Set<string>> {
  const ids = new Set<string>();
  const partitions = dispatcher.queues().slice(0, -1); // the last is the dead-letter queue
  for (const queue of partitions) {
    const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized']);
    for (const job of jobs) {
      const eventId = (job?.data as { payload?: { eventId?: unknown } } | undefined)?.payload?.eventId;
      if (typeof eventId === 'string') ids.add(eventId);
    }
  }
  return ids;
}

/** `200: n, 503: n` for a report line. */
export const describeAnswers = (answers: Map<number | 'error', number>): string =>
  [...answers.entries()]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ') || 'none';

/** Keys matching `pattern` on one server (SCAN). */
export async function keysOn(client: Redis | Cluster, pattern: string): Promise<string[]> {
  const found: string[] = [];
  const servers = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/** The primary a fault hits, its replica, and how to tell the failover is over. */
export interface FaultTarget {
  readonly primary: RedisNode;
  readonly replica: RedisNode;
  /** Partition queues on the primary (at most one job of each runs at a time). */
  readonly partitionsOnPrimary: number;
  /** Whether a conversation's partition is on the primary; every one when not given. */
  readonly affects?: (participant: string) => boolean;
  /** Resolves once another node serves in the primary's place. */
  promoted(): Promise<void>;
  /** The operator's part: starts the killed node again, to rejoin as a replica. */
  rejoin(): Promise<void>;
  /** Resolves once the topology is whole again: the killed node back as a replica, in sync. */
  healthy(): Promise<void>;
}

/** One receiver set of a failover scenario: its own queues, its own acknowledgement setting. */
export interface FailoverVariant {
  readonly label: string;
  readonly topology: ScenarioTopology;
  readonly waitForReplicas?: ReplicaAckOptions | undefined;
}

/** One failover scenario's settings. */
export interface FailoverScenario {
  readonly connection: RedisConnection;
  /**
   * Receiver sets taking their bursts side by side through the same fault. Give them the same
   * queueName and partitions and different `prefix`es: their partitions then share slots, so the
   * fault hits each the same way.
   */
  readonly variants: readonly FailoverVariant[];
  /**
   * `kill`: SIGKILL the primary. `pause-replica-then-kill`: SIGSTOP the replica and have the
   * primary drop its link (`CLIENT KILL TYPE replica`), which the stopped replica cannot re-open,
   * for `pauseMs`: what the primary acknowledges meanwhile reaches no replica. Then SIGKILL the
   * primary and SIGCONT the replica, which is promoted without those writes. (A SIGSTOP alone opens
   * no such window: the kernel keeps receiving the replication stream into the stopped replica's
   * socket, which it reads on resuming; a link cut from the replica's side is re-opened at once.)
   */
  readonly fault: 'kill' | 'pause-replica-then-kill';
  readonly pauseMs?: number;
  /** Workers run during the burst (else only after the failover, so that nothing lost has run). */
  readonly workersDuring: boolean;
  readonly target: () => Promise<FaultTarget>;
  readonly conversations?: number;
  readonly length?: number;
}

/** What a failover scenario measured for one variant. */
export interface FailoverResult extends Tally {
  readonly label: string;
  readonly delivery: Delivery;
  readonly partitionsOnPrimary: number;
  /** Fault → another node serving; fault → topology whole again (ms). */
  readonly promotedAfterMs: number;
  readonly healthyAfterMs: number;
  readonly line: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one failover scenario end to end, every variant's burst at once through one fault (started
 * once a quarter of the first variant's events are acked); closes everything it started.
 */
export async function runFailover(scenario: FailoverScenario): Promise<FailoverResult[]> {
  const { connection } = scenario;
  const sets = await Promise.all(
    scenario.variants.map(async (variant) => ({
      variant,
      receivers: await Promise.all([
        startReceiverInstance(connection, variant.topology, variant.waitForReplicas),
        startReceiverInstance(connection, variant.topology, variant.waitForReplicas),
      ]),
      log: createRunLog(),
      workers: [] as WebhookWorker[],
      all: conversations(
        `${variant.topology.queueName}-${variant.topology.prefix ?? 'bull'}`,
        scenario.conversations ?? 30,
        scenario.length ?? 8,
      ),
    })),
  );
  const startWorkers = async (): Promise<void> => {
    for (const set of sets) set.workers.push(startRecordingWorker(connection, set.variant.topology, set.log));
    await Promise.all(sets.map((set) => set.workers.at(-1)!.ready()));
  };
  try {
    if (scenario.workersDuring) await startWorkers();
    const target = await scenario.target();
    let promotedAfterMs = Number.NaN;
    let healthyAfterMs = Number.NaN;
    let faultDone: Promise<void> | undefined;
    let killedAt: number | undefined;
    const fault = async (): Promise<void> => {
      const started = Date.now();
      if (scenario.fault === 'pause-replica-then-kill') {
        target.replica.pause();
        await command(target.primary.port, 'CLIENT', 'KILL', 'TYPE', 'replica');
        await sleep(scenario.pauseMs ?? 300);
      }
      killedAt = Date.now();
      await target.primary.kill();
      target.replica.resume();
      await target.promoted();
      promotedAfterMs = Date.now() - started;
      await target.rejoin();
      await target.healthy();
      healthyAfterMs = Date.now() - started;
    };
    /** Starts the fault once, for whichever variant gets there first; later calls wait for it. */
    const once = (): Promise<void> => (faultDone ??= fault());
    const total = sets[0]!.all.reduce((sum, conversation) => sum + conversation.eventIds.length, 0);
    const deliveries = await Promise.all(
      sets.map((set, index) =>
        deliver(set.receivers, set.all, {
          ...(index === 0 ? { faultAfter: Math.floor(total / 4), fault: once } : {}),
          deadlineMs: 40_000,
          outageStarted: () => killedAt !== undefined,
          ...(target.affects === undefined ? {} : { affects: target.affects }),
        }),
      ),
    );
    await faultDone;
    if (!scenario.workersDuring) await startWorkers();
    await Promise.all(
      sets.map((set, index) => drain(set.receivers[0].dispatcher, deliveries[index]!, set.log)),
    );
    const stillQueued = await Promise.all(sets.map((set) => queuedEventIds(set.receivers[0].dispatcher)));
    return sets.map((set, index) => {
      const delivery = deliveries[index]!;
      const result = tally(set.all, delivery, set.log, stillQueued[index]);
      const events = set.all.reduce((sum, conversation) => sum + conversation.eventIds.length, 0);
      const line =
        `${set.variant.label}: ${events} events (${set.all.length} conversations), each to both receivers; ` +
        `primary with ${target.partitionsOnPrimary} of ${set.variant.topology.partitions} partitions; another node serving after ${promotedAfterMs} ms, ` +
        `whole again after ${healthyAfterMs} ms; answers ${describeAnswers(delivery.answers)} ` +
        `(during the outage: ${describeAnswers(delivery.answersDuringOutage)}); ` +
        `acked ${result.acked}, ran ${result.ran}, lost ${result.lost}, still queued ${result.queued}, twice ${result.twice}, out of order ${result.outOfOrder}` +
        (delivery.unanswered.length > 0 ? `; never answered 200: ${delivery.unanswered.length}` : '');
      process.stdout.write(`${line}\n`);
      return {
        label: set.variant.label,
        ...result,
        delivery,
        partitionsOnPrimary: target.partitionsOnPrimary,
        promotedAfterMs,
        healthyAfterMs,
        line,
      };
    });
  } finally {
    await Promise.all(sets.flatMap((set) => set.workers.map((worker) => worker.close(2000))));
    await Promise.all(sets.flatMap((set) => set.receivers.map((receiver) => receiver.close())));
  }
}

/**
 * The two receiver sets every failover scenario compares: the default (200 once the job is on the
 * primary) and `waitForReplicas: { replicas: 1 }`. Same queue name and partitions, different BullMQ
 * prefixes: their partitions share slots, so one fault hits both alike.
 */
export function withAndWithoutReplicaAck(label: string, partitions: number): FailoverVariant[] {
  const queueName = uniqueName(label);
  return [
    {
      label: `${label}, default`,
      topology: { queueName, partitions, prefix: 'mwdefault', dedupePrefix: `${queueName}:default:` },
    },
    {
      label: `${label}, waitForReplicas 1`,
      topology: { queueName, partitions, prefix: 'mwreplicas', dedupePrefix: `${queueName}:replicas:` },
      waitForReplicas: { replicas: 1 },
    },
  ];
}

/** Answers within the outage past which some must be 503s (see expectRecovered). */
const OUTAGE_ANSWERS_TO_SHOW_REFUSAL = 5;

/**
 * What every failover must show, with or without the replica acknowledgement: each event got its
 * 200 in the end, from the same receivers (they recovered by themselves), with 503 and nothing
 * else while they could not enqueue; nothing ran twice but what the fault itself can repeat.
 */
export function expectRecovered(result: FailoverResult, workersDuring: boolean): void {
  expect(result.delivery.unanswered).toEqual([]);
  expect([...result.delivery.answers.keys()].filter((status) => status !== 200 && status !== 503)).toEqual(
    [],
  );
  // A burst can end (or nearly) before the fault: the lag scenario's default side may get every
  // event acked by the primary before it is killed. Then nothing, or only retries of earlier
  // events, were answered during the outage, and no event first sent after it shows recovery.
  // Within the outage's window (from the kill to the first 200 of an event sent after it) a 200
  // is right for a request whose enqueue raced the SIGKILL or that ioredis held through the
  // promotion and then sent, and the 503s of requests that gave up may come after the window
  // closed (seen: 14 answers in it, all 200, and 10 answers 503 after it; or 2 answers in it,
  // both 200). So: with more than a burst's tail in the window, the run refused some requests
  // (503, never any other status: checked above) rather than holding them all.
  const duringOutage = [...result.delivery.answersDuringOutage.values()].reduce((sum, n) => sum + n, 0);
  if (duringOutage >= OUTAGE_ANSWERS_TO_SHOW_REFUSAL)
    expect(result.delivery.answers.get(503) ?? 0).toBeGreaterThan(0);
  if (result.delivery.sentAfterFault) expect(result.delivery.recoveredAfterMs).toBeDefined();
  // A run repeats only for a job whose completion the dead primary had not replicated: at most the
  // one job per partition running on it at the kill. With workers started after the failover,
  // nothing had run, and the dedupe store and jobIds let no duplicate through.
  expect(result.twice).toBeLessThanOrEqual(workersDuring ? result.partitionsOnPrimary : 0);
}

/** With the replica acknowledgement: every event answered 200 ran, in its conversation's order. */
export function expectNoLoss(result: FailoverResult): void {
  expect(result.lost).toBe(0);
  expect(result.queued).toBe(0);
  expect(result.ran).toBe(result.acked);
  expect(result.outOfOrder).toBe(0);
}
