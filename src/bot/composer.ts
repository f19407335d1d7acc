import { WEBHOOK_TYPES, type WebhookType } from '../schemas/index.js';
import type { BotEventContext } from './context.js';
import {
  compileQuery,
  queriesOverlap,
  type CompatibleQuery,
  type CompiledQuery,
  type FilterQuery,
  type Narrow,
} from './filters.js';
import type { Context, ErrorHandler, Handler, Middleware, NextFunction, TextContext } from './types.js';

type AnyHandler = (ctx: BotEventContext) => unknown;
type AnyMiddleware = (ctx: BotEventContext, next: NextFunction) => unknown;
type AnyErrorHandler = (error: unknown, ctx: BotEventContext) => unknown;
type Test = (ctx: BotEventContext) => boolean;
type PayloadTest = (payload: BotEventContext['payload']) => boolean;
/** What an implementation signature takes: any handler, whatever context type it declares. */
type LooseHandler = (ctx: never) => unknown;
/** The handlers of a public signature as the dispatch calls them (each gets the one context class). */
const loose = (fns: readonly LooseHandler[]): readonly AnyHandler[] =>
  fns as unknown as readonly AnyHandler[];

/** What a composer holds, in registration order. */
type Registration =
  | { readonly kind: 'use'; readonly fn: AnyMiddleware }
  | {
      readonly kind: 'handle';
      /** undefined: every event of the composer's scope. */
      readonly queries: readonly CompiledQuery[] | undefined;
      readonly test: Test | undefined;
      readonly fns: readonly AnyHandler[];
      /** Marks the event handled (`on`, `hears`, `command`, `filter`; not `onAny`). */
      readonly marks: boolean;
    }
  | { readonly kind: 'otherwise'; readonly fns: readonly AnyHandler[] }
  | {
      readonly kind: 'mount';
      readonly queries: readonly CompiledQuery[] | undefined;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a composer of any session and scope
      readonly composer: Composer<any, any>;
    };

const HANDLE = 0;
const OTHERWISE = 1;
const USE = 2;
const CHILD = 3;

/** One registration as it applies to one webhook type; what the dispatch walks. */
type Step =
  | {
      readonly kind: typeof HANDLE;
      /** The filter queries' test, on the payload (none: every event of the type). */
      readonly match: PayloadTest | undefined;
      /** The registration's own test (`hears`, `command`, `filter`), on the context. */
      readonly test: Test | undefined;
      readonly fns: readonly AnyHandler[];
      readonly marks: boolean;
    }
  | { readonly kind: typeof OTHERWISE; readonly fns: readonly AnyHandler[] }
  | { readonly kind: typeof USE; readonly fn: AnyMiddleware }
  | { readonly kind: typeof CHILD; readonly match: PayloadTest | undefined; readonly child: Compiled };

/** A composer compiled for one webhook type: its steps and its error handler. */
export interface Compiled {
  readonly steps: readonly Step[];
  readonly onError: AnyErrorHandler | undefined;
}

/**
 * Bumped by every registration anywhere: a bot recompiles its chains when it changed, so handlers
 * registered after the bot was mounted (in it or in a composer it mounted) still run.
 */
let generation = 0;
/** The registrations' generation, read by the bot to know when its compiled chains are stale. */
export const currentGeneration = (): number => generation;

const noop = (): undefined => undefined;

/** True for a promise or any other thenable a handler may return. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** What a step's chain returns: undefined when it finished synchronously, else its promise. */
type Pending = Promise<unknown> | undefined;

/** Runs `fns` from `index` one after another: synchronously until one returns a promise. */
function callAll(ctx: BotEventContext, fns: readonly AnyHandler[], index: number): Pending {
  for (let i = index; i < fns.length; i += 1) {
    const result = fns[i]!(ctx);
    if (isThenable(result)) {
      const next = i + 1;
      return next === fns.length
        ? Promise.resolve(result)
        : Promise.resolve(result).then(() => callAll(ctx, fns, next));
    }
  }
  return undefined;
}

/**
 * Calls a middleware with the `next` that runs the steps after it. A middleware that calls `next()`
 * without awaiting it still has those steps' failure fail the job (and the job wait for them):
 * when its own promise settles before they did, they are awaited too. One that awaited `next()`
 * (and perhaps handled its error) is not second-guessed. A middleware that returns what `next()`
 * returned (`(ctx, next) => next()`) costs no promise of its own.
 */
function callMiddleware(
  ctx: BotEventContext,
  fn: AnyMiddleware,
  steps: readonly Step[],
  index: number,
  done: () => Pending,
): Pending {
  // Closure variables, not an object: one context and one function per call. The handlers that
  // mark `settled` are made only when the middleware's own promise and the rest's both exist.
  let called = false;
  let returned = false;
  let settled = false;
  let downstream: Promise<unknown> | undefined;
  const next = (): Promise<void> | undefined => {
    if (called) throw new TypeError('next() was called twice by one middleware');
    called = true;
    const result = runSteps(ctx, steps, index, done);
    if (result === undefined) return undefined;
    downstream = result;
    // Called after the middleware returned (after an await): observed here, so it cannot reject
    // unobserved, and awaited below if the middleware does not.
    if (returned) {
      result.then(
        () => (settled = true),
        () => (settled = true),
      );
    }
    return result as Promise<void>;
  };
  const own = fn(ctx, next);
  returned = true;
  if (!isThenable(own)) return downstream;
  if (own === downstream) return downstream;
  if (downstream !== undefined) {
    downstream.then(
      () => (settled = true),
      () => (settled = true),
    );
  }
  return (own instanceof Promise ? own : Promise.resolve(own)).then(() =>
    settled || downstream === undefined ? undefined : downstream,
  );
}

/** Continues after an asynchronous handler: nothing to chain when it was the last step. */
function after(
  pending: Promise<unknown>,
  ctx: BotEventContext,
  steps: readonly Step[],
  next: number,
  done: () => Pending,
): Promise<unknown> {
  return next === steps.length && done === noop
    ? pending
    : pending.then(() => runSteps(ctx, steps, next, done));
}

/** Runs steps from `index`, then `done`; synchronously as long as every handler is. */
function runSteps(ctx: BotEventContext, steps: readonly Step[], index: number, done: () => Pending): Pending {
  for (let i = index; i < steps.length; i += 1) {
    const step = steps[i]!;
    switch (step.kind) {
      case HANDLE: {
        if (step.match !== undefined && !step.match(ctx.payload)) continue;
        if (step.test !== undefined && !step.test(ctx)) continue;
        if (step.marks) ctx.handled = true;
        const pending = callAll(ctx, step.fns, 0);
        if (pending !== undefined) return after(pending, ctx, steps, i + 1, done);
        continue;
      }
      case OTHERWISE: {
        if (ctx.handled) continue;
        const pending = callAll(ctx, step.fns, 0);
        if (pending !== undefined) return after(pending, ctx, steps, i + 1, done);
        continue;
      }
      case USE:
        return callMiddleware(ctx, step.fn, steps, i + 1, done);
      case CHILD: {
        if (step.match !== undefined && !step.match(ctx.payload)) continue;
        const next = i + 1;
        return runCompiled(ctx, step.child, () => runSteps(ctx, steps, next, done));
      }
    }
  }
  return done();
}

const NOT_REACHED = 0;
const REACHED = 1;
const FAILED_AFTER = 2;

/**
 * Runs a compiled composer, then `done` (what follows it). With an error handler, an error thrown
 * by the composer's own handlers and middleware goes to it: when it returns, the error is handled
 * and what follows the composer still runs (once); when it throws, that error goes on. An error
 * thrown by what follows the composer passes through untouched.
 */
export function runCompiled(ctx: BotEventContext, compiled: Compiled, done: () => Pending = noop): Pending {
  const { onError } = compiled;
  if (onError === undefined) return runSteps(ctx, compiled.steps, 0, done);
  let after: typeof NOT_REACHED | typeof REACHED | typeof FAILED_AFTER = NOT_REACHED;
  const rest = (): Pending => {
    after = REACHED;
    let result: Pending;
    try {
      result = done();
    } catch (error) {
      after = FAILED_AFTER;
      throw error;
    }
    return result?.then(undefined, (error: unknown) => {
      after = FAILED_AFTER;
      throw error;
    });
  };
  const recover = (error: unknown): Pending => {
    if (after === FAILED_AFTER) throw error;
    const handled = onError(error, ctx);
    const then = (): Pending => (after === NOT_REACHED ? done() : undefined);
    return isThenable(handled) ? Promise.resolve(handled).then(then) : then();
  };
  let result: Pending;
  try {
    result = runSteps(ctx, compiled.steps, 0, rest);
  } catch (error) {
    return recover(error);
  }
  return result?.then(undefined, recover);
}

function checkFunctions(method: string, fns: readonly unknown[], what = 'handler'): void {
  if (fns.length === 0) throw new TypeError(`${method}: expected at least one ${what}`);
  for (const fn of fns) {
    if (typeof fn !== 'function')
      throw new TypeError(`${method}: expected ${what} functions, got a ${typeof fn}`);
  }
}

/** The test a list of queries makes for one webhook type: `false` when none can match it. */
function testFor(
  queries: readonly CompiledQuery[] | undefined,
  type: WebhookType,
): PayloadTest | undefined | false {
  if (queries === undefined) return undefined;
  const own = queries.filter((query) => query.type === type);
  if (own.length === 0) return false;
  if (own.some((query) => query.test === undefined)) return undefined;
  const tests = own.map((query) => query.test!);
  if (tests.length === 1) return tests[0];
  return (payload) => tests.some((test) => test(payload));
}

/** The text `hears` and `command` read: an INCOMING chatbot event's `messageText`. */
function incomingText(ctx: BotEventContext): string | undefined {
  const { payload } = ctx;
  return payload.direction === 'INCOMING' && typeof payload.messageText === 'string'
    ? payload.messageText
    : undefined;
}

/** A RegExp without the flags that make `exec` remember where it stopped (g, y). */
function stateless(pattern: RegExp): RegExp {
  return pattern.global || pattern.sticky
    ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''))
    : pattern;
}

/** A composer compiled for one webhook type (for the bot; not a method, so not public API). */
export let compileComposer: (composer: object, type: WebhookType) => Compiled;
/** The webhook types some handler of a composer can run for (for the bot's `handlers()`). */
export let handledTypesOf: (composer: object) => Set<WebhookType>;

/**
 * A set of handlers and middleware for the webhook events, composable: a bot (`createBot`) is one,
 * and `bot.use(composer)` mounts another, so an app splits its handlers across files (like grammY's
 * `Composer` or an Express `Router`). `S` is the session's type, `Q` the events it sees (all, or
 * those of `on(filter)` without handlers).
 *
 * Order: everything runs in registration order. Middleware (`use`) runs around what was registered
 * after it and must call `next()` to continue. Handlers (`on`, `hears`, `command`, `filter`,
 * `onAny`) do not: every handler whose filter matches runs, one after another. `otherwise` runs
 * when no handler before it matched. A handler's returned promise is awaited before the next runs.
 *
 * @example
 * // greetings.ts
 * export const greetings = new Composer<Session>();
 * greetings.hears(/^(hi|hello)\b/i, (ctx) => ctx.reply('Hello! How can I help?'));
 * // bot.ts
 * bot.use(greetings);
 */
export class Composer<S = undefined, Q extends FilterQuery = WebhookType> {
  readonly #registrations: Registration[] = [];
  #scope: readonly FilterQuery[] = WEBHOOK_TYPES;
  #onError: AnyErrorHandler | undefined;

  /** Registers middleware, or mounts composers (their handlers run in place, in their order). */
  use(...middleware: readonly (Middleware<Context<Q, S>> | Composer<S, FilterQuery>)[]): this {
    checkFunctions(
      'use',
      middleware.map((item) => (item instanceof Composer ? noop : item)),
      'middleware or composer',
    );
    for (const item of middleware) {
      this.#register(
        item instanceof Composer
          ? { kind: 'mount', queries: undefined, composer: item }
          : { kind: 'use', fn: item as unknown as AnyMiddleware },
      );
    }
    return this;
  }

  /**
   * Handles the events a filter query (or any of several) matches; in the handlers, `ctx.payload`
   * is narrowed to the query. Without handlers, returns a composer scoped to the query, to chain
   * `hears`, `use` and more on: `bot.on('chatbot:INCOMING').use(...)`.
   */
  on<const F extends CompatibleQuery<Q>>(filter: F | readonly F[]): Composer<S, Narrow<Q, F>>;
  on<const F extends CompatibleQuery<Q>>(
    filter: F | readonly F[],
    ...handlers: readonly [Handler<Context<Narrow<Q, F>, S>>, ...Handler<Context<Narrow<Q, F>, S>>[]]
  ): this;
  on(filter: FilterQuery | readonly FilterQuery[], ...handlers: readonly LooseHandler[]): unknown {
    const queries = this.#queries('on', filter);
    if (handlers.length === 0) {
      const scoped = new Composer<S, FilterQuery>();
      scoped.#scope = this.#scope.flatMap((scope) =>
        queries.flatMap(({ query }) =>
          !queriesOverlap(scope, query)
            ? []
            : query === scope || query.startsWith(`${scope}:`)
              ? [query]
              : [scope],
        ),
      );
      this.#register({ kind: 'mount', queries, composer: scoped });
      return scoped;
    }
    checkFunctions('on', handlers);
    return this.#register({ kind: 'handle', queries, test: undefined, fns: loose(handlers), marks: true });
  }

  /**
   * Handles INCOMING chatbot events whose `messageText` matches: a string (or any of several)
   * equal to the whole text, ignoring case and surrounding spaces (`ctx.match` is the string
   * that matched), or a RegExp (`ctx.match` is its match array; `g` and `y` are dropped so a
   * pattern keeps no state between events).
   */
  hears(
    trigger: string | readonly string[],
    ...handlers: readonly Handler<TextContext<Q, S, string>>[]
  ): this;
  hears(trigger: RegExp, ...handlers: readonly Handler<TextContext<Q, S, RegExpMatchArray>>[]): this;
  hears(trigger: string | readonly string[] | RegExp, ...handlers: readonly LooseHandler[]): this {
    checkFunctions('hears', handlers);
    let test: Test;
    if (trigger instanceof RegExp) {
      const pattern = stateless(trigger);
      test = (ctx) => {
        const text = incomingText(ctx);
        const match = text === undefined ? null : pattern.exec(text);
        if (match === null) return false;
        ctx.match = match;
        return true;
      };
    } else {
      const triggers = (typeof trigger === 'string' ? [trigger] : trigger) as readonly unknown[];
      if (triggers.length === 0 || triggers.some((t) => typeof t !== 'string' || t.trim() === '')) {
        throw new TypeError('hears: expected a RegExp, a non-empty string or an array of them');
      }
      const wanted = new Map(triggers.map((t) => [(t as string).trim().toLowerCase(), t as string]));
      test = (ctx) => {
        const text = incomingText(ctx);
        const matched = text === undefined ? undefined : wanted.get(text.trim().toLowerCase());
        if (matched === undefined) return false;
        ctx.match = matched;
        return true;
      };
    }
    return this.#text('hears', test, loose(handlers));
  }

  /**
   * Handles INCOMING chatbot events whose text is a command: `/name`, optionally followed by
   * arguments (`/order 1234`). The name is compared ignoring case (phones capitalise the first
   * letter); `ctx.match` is the arguments, trimmed (`''` when none).
   */
  command(
    name: string | readonly string[],
    ...handlers: readonly Handler<TextContext<Q, S, string>>[]
  ): this {
    checkFunctions('command', handlers);
    const names = (typeof name === 'string' ? [name] : name) as readonly unknown[];
    if (names.length === 0 || names.some((n) => typeof n !== 'string' || !/^\/?[^\s/]+$/.test(n))) {
      throw new TypeError(
        `command: expected command names such as 'start' or '/start', got ${JSON.stringify(name)}`,
      );
    }
    const wanted = new Set(names.map((n) => (n as string).replace(/^\//, '').toLowerCase()));
    const test: Test = (ctx) => {
      const text = incomingText(ctx);
      const command = text === undefined ? null : /^\s*\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(text);
      if (command === null || !wanted.has(command[1]!.toLowerCase())) return false;
      ctx.match = (command[2] ?? '').trim();
      return true;
    };
    return this.#text('command', test, loose(handlers));
  }

  /**
   * Handles the events `predicate` accepts (any of the composer's scope). A type guard narrows the
   * handlers' context.
   */
  filter<C extends Context<Q, S>>(
    predicate: (ctx: Context<Q, S>) => ctx is C,
    ...handlers: readonly Handler<C>[]
  ): this;
  filter(predicate: (ctx: Context<Q, S>) => unknown, ...handlers: readonly Handler<Context<Q, S>>[]): this;
  filter(predicate: (ctx: never) => unknown, ...handlers: readonly LooseHandler[]): this {
    checkFunctions('filter', [predicate], 'predicate');
    checkFunctions('filter', handlers);
    const accepts = predicate as unknown as (ctx: BotEventContext) => unknown;
    const test: Test = (ctx) => Boolean(accepts(ctx));
    return this.#register({ kind: 'handle', queries: undefined, test, fns: loose(handlers), marks: true });
  }

  /**
   * Handles every event of the composer's scope (octokit's `onAny`), for logging or metrics. It
   * does not count as handling: `otherwise` handlers still run after it.
   */
  onAny(...handlers: readonly Handler<Context<Q, S>>[]): this {
    checkFunctions('onAny', handlers);
    return this.#register({
      kind: 'handle',
      queries: undefined,
      test: undefined,
      fns: loose(handlers),
      marks: false,
    });
  }

  /**
   * The catch-all: handles events of the composer's scope that no handler registered before it
   * matched (`ctx.handled` false), such as "Sorry, I did not understand". Register it last.
   */
  otherwise(...handlers: readonly Handler<Context<Q, S>>[]): this {
    checkFunctions('otherwise', handlers);
    return this.#register({ kind: 'otherwise', fns: loose(handlers) });
  }

  /**
   * The error handler of this composer's handlers and middleware (those registered in it and in
   * what it mounts). It receives the error as thrown (never wrapped) and the event's context.
   * Returning handles the error: the event counts as handled successfully (the job succeeds, its
   * session is saved) and what follows this composer still runs. Throwing (the same error or
   * another) fails the job: retried per `retry`, then dead-lettered. Errors thrown by what follows
   * this composer are not its own and pass through. Without one, a throw fails the job. Setting
   * it again replaces it.
   */
  catch(handler: ErrorHandler<Context<Q, S>>): this {
    checkFunctions('catch', [handler], 'error handler');
    generation += 1;
    this.#onError = handler as unknown as AnyErrorHandler;
    return this;
  }

  /** This composer compiled for one webhook type: only the registrations that can see it. */
  #compile(type: WebhookType): Compiled {
    const steps: Step[] = [];
    for (const registration of this.#registrations) {
      switch (registration.kind) {
        case 'use':
          steps.push({ kind: USE, fn: registration.fn });
          break;
        case 'otherwise':
          steps.push({ kind: OTHERWISE, fns: registration.fns });
          break;
        case 'handle': {
          const match = testFor(registration.queries, type);
          if (match === false) break;
          const { test, fns, marks } = registration;
          steps.push({ kind: HANDLE, match, test, fns, marks });
          break;
        }
        case 'mount': {
          const match = testFor(registration.queries, type);
          if (match === false) break;
          const child = registration.composer.#compile(type);
          if (child.steps.length > 0) steps.push({ kind: CHILD, match, child });
          break;
        }
      }
    }
    return { steps, onError: this.#onError };
  }

  /** The webhook types some handler of this composer (or of what it mounts) can run for. */
  #handledTypes(): Set<WebhookType> {
    const scope = new Set(this.#scope.map((query) => query.split(':')[0] as WebhookType));
    const types = new Set<WebhookType>();
    for (const registration of this.#registrations) {
      if (registration.kind === 'use') continue;
      if (registration.kind === 'mount') {
        for (const type of registration.composer.#handledTypes()) if (scope.has(type)) types.add(type);
        continue;
      }
      const own =
        registration.kind === 'handle' && registration.queries !== undefined
          ? registration.queries.map((query) => query.type)
          : scope;
      for (const type of own) if (scope.has(type)) types.add(type);
    }
    return types;
  }

  static {
    compileComposer = (composer, type) => (composer as Composer).#compile(type);
    handledTypesOf = (composer) => (composer as Composer).#handledTypes();
  }

  #register(registration: Registration): this {
    if (registration.kind === 'mount' && (registration.composer as unknown) === this) {
      throw new TypeError('use: a composer cannot mount itself');
    }
    generation += 1;
    this.#registrations.push(registration);
    return this;
  }

  /** Compiles queries and checks each can match an event of this composer's scope. */
  #queries(method: string, filter: unknown): readonly CompiledQuery[] {
    const list = Array.isArray(filter) ? (filter as unknown[]) : [filter];
    if (list.length === 0)
      throw new TypeError(`${method}: expected a filter query or a non-empty array of them`);
    return list.map((item) => {
      const query = compileQuery(item, method);
      if (!this.#scope.some((scope) => queriesOverlap(scope, query.query))) {
        throw new TypeError(
          `${method}: '${query.query}' never matches in a composer scoped to ${this.#scope.map((s) => `'${s}'`).join(', ')}`,
        );
      }
      return query;
    });
  }

  /** Registers a `hears` or `command`: INCOMING chatbot events, then the text test. */
  #text(method: string, test: Test, handlers: readonly AnyHandler[]): this {
    const queries = this.#queries(method, 'chatbot:INCOMING');
    return this.#register({ kind: 'handle', queries, test, fns: handlers, marks: true });
  }
}
