import type { WebhookJob } from '../dispatch/index.js';
import type { WebhookObserver, WebhookPipeline } from '../pipeline/index.js';

/**
 * Follows accepted events to the end of their callbacks, for the requests whose caller can keep
 * the runtime alive (waitUntil), through the pipeline's observer: `enqueuing` before a job is
 * offered to the dispatcher (a callback may run, and finish, before the enqueue returns, so the
 * promise must exist first), `jobSettled` once its callbacks are over or it was refused. Keyed by
 * request id (the job carries it; several requests may share one, a sender's `x-request-id`, so
 * each key counts its watchers) and by job object. Costs two `size` checks per event when nobody
 * watches.
 */
class Followed implements WebhookObserver {
  /** Requests being answered with a waitUntil, by request id: the events they queued so far. */
  private readonly watched = new Map<string, { watchers: number; done: Promise<void>[] }>();
  /** Queued events of watched requests, each with the resolve of its promise. */
  private readonly pending = new Map<WebhookJob, () => void>();

  watch(requestId: string): void {
    const entry = this.watched.get(requestId);
    if (entry) entry.watchers += 1;
    else this.watched.set(requestId, { watchers: 1, done: [] });
  }

  /** Stops watching; returns the promises of the events queued under `requestId` meanwhile. */
  unwatch(requestId: string): Promise<void>[] {
    const entry = this.watched.get(requestId);
    if (entry === undefined) return [];
    entry.watchers -= 1;
    if (entry.watchers === 0) this.watched.delete(requestId);
    const { done } = entry;
    entry.done = [];
    return done;
  }

  enqueuing(job: WebhookJob): void {
    if (this.watched.size === 0) return;
    const entry = this.watched.get(job.requestId);
    if (entry === undefined) return;
    entry.done.push(new Promise<void>((resolve) => this.pending.set(job, resolve)));
  }

  jobSettled(job: WebhookJob): void {
    if (this.pending.size === 0) return;
    const resolve = this.pending.get(job);
    if (resolve === undefined) return;
    this.pending.delete(job);
    resolve();
  }

  answered(): void {}
  callbackSettled(): void {}
  retried(): void {}
}

/**
 * Shares the pipeline's one observer slot between the app's observer (`messaging-webhooks/metrics`
 * sets it through `pipeline.observe`) and `followed`, which takes its place from the first
 * request with a waitUntil on: until then the slot holds the app's observer alone, so a handler
 * that never follows pays nothing. Returns the function that starts following.
 */
function shareObserver(pipeline: WebhookPipeline, followed: Followed): () => void {
  const setObserver = pipeline.observe.bind(pipeline);
  let app: WebhookObserver | undefined;
  let following = false;
  const update = () => setObserver(following ? (app === undefined ? followed : both(app, followed)) : app);
  pipeline.observe = (observer) => {
    app = observer;
    update();
  };
  return () => {
    if (following) return;
    following = true;
    update();
  };
}

/**
 * The following of one handler's requests (the web and Lambda exchanges): its {@link Followed},
 * put in the pipeline's observer slot by the first request it watches.
 */
export class Follower {
  private readonly followed = new Followed();
  private readonly start: () => void;

  constructor(pipeline: WebhookPipeline) {
    this.start = shareObserver(pipeline, this.followed);
  }

  /** Watches the events `requestId` queues from now on (an exchange's `accepting`). */
  watch(requestId: string): void {
    this.start();
    this.followed.watch(requestId);
  }

  /** Stops watching `requestId`; the promises of the events it queued meanwhile. */
  unwatch(requestId: string): Promise<void>[] {
    return this.followed.unwatch(requestId);
  }
}

/** An observer telling `first`, then `second`. */
function both(first: WebhookObserver, second: Followed): WebhookObserver {
  return {
    answered: (type, status, code, seconds) => first.answered(type, status, code, seconds),
    callbackSettled: (type, seconds) => first.callbackSettled(type, seconds),
    retried: (type) => first.retried(type),
    enqueuing(job) {
      first.enqueuing?.(job);
      second.enqueuing(job);
    },
    jobSettled(job) {
      first.jobSettled?.(job);
      second.jobSettled(job);
    },
  };
}
