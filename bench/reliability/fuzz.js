// Part 1 of `npm run reliability`: fuzzed requests over real sockets (fast-check, fixed seeds):
// fixtures with a fresh identity, mutated (fields set or removed, prototype keys, edited or
// truncated text) or random JSON, about 10 % redelivered, to the node handler and to the Express
// router over 16 keep-alive connections each. Every fresh 200 must have run its callback exactly
// once, no duplicate or non-200 may have run one, and only documented 5xx may appear.
import fc from 'fast-check';
import { Pool } from 'undici';
import { allFixtures } from '../../dist/testing/index.js';
import { fixed, table } from '../lib/table.js';
import {
  ADAPTERS,
  DOCUMENTED_503,
  ENDPOINTS,
  ENDPOINT_OF,
  IDENTITY,
  listen,
  recorder,
  stop,
} from './common.js';

const FIXTURES = allFixtures();

/** A fixture with a fresh identity (so it is not a duplicate of the corpus), then mutated. */
function fuzzArbitrary(baseSeed) {
  let counter = 0;
  const fresh = fc.constantFrom(...FIXTURES).map((f) => {
    counter += 1;
    const payload = structuredClone(f.payload);
    const [field, kind] = IDENTITY[f.type];
    payload[field] = kind === 'string' ? `fuzz-${baseSeed}-${counter}` : 1_700_000_000_000 + counter;
    return { type: f.type, payload };
  });
  const own = (f) => ENDPOINT_OF[f.type];
  const mutated = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fresh, fc.constantFrom(...ENDPOINTS, 'own', 'own', 'own')).map(([f, p]) => ({
        path: p === 'own' ? own(f) : p,
        body: JSON.stringify(f.payload),
        kind: 'fixture',
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fresh, fc.nat(), fc.jsonValue({ maxDepth: 3 })).map(([f, at, value]) => {
        const keys = Object.keys(f.payload);
        f.payload[keys[at % keys.length]] = value;
        return { path: own(f), body: JSON.stringify(f.payload), kind: 'field set' };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fresh, fc.nat()).map(([f, at]) => {
        const keys = Object.keys(f.payload);
        delete f.payload[keys[at % keys.length]];
        return { path: own(f), body: JSON.stringify(f.payload), kind: 'field removed' };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fresh, fc.constantFrom('__proto__', 'constructor'), fc.integer({ min: 0, max: 40 }))
        .map(([f, key, depth]) => ({
          path: own(f),
          body: JSON.stringify(f.payload).replace(
            /}$/,
            `,"extra":${'{"n":'.repeat(depth)}{"${key}":{"prototype":{"polluted":true}}}${'}'.repeat(depth)}}`,
          ),
          kind: 'prototype key',
        })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fresh, fc.nat(), fc.string({ maxLength: 3 })).map(([f, at, insert]) => {
        const text = JSON.stringify(f.payload);
        const i = at % (text.length + 1);
        return { path: own(f), body: text.slice(0, i) + insert + text.slice(i), kind: 'text edited' };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fresh, fc.nat()).map(([f, at]) => {
        const text = JSON.stringify(f.payload);
        return { path: own(f), body: text.slice(0, at % text.length), kind: 'truncated' };
      }),
    },
  );
  const randomJson = fc
    .tuple(fc.constantFrom(...ENDPOINTS), fc.json({ maxDepth: 4 }))
    .map(([path, body]) => ({ path, body, kind: 'random JSON' }));
  return fc.oneof({ weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: randomJson });
}

async function fuzzAdapter(baseSeed, name, total, build) {
  const rec = recorder();
  const { receiver, listener } = build(rec.options);
  const { server, port } = await listen(listener);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 16, pipelining: 1 });
  // Fixed seed, per adapter: the first sample's seed is baseSeed, the Express one baseSeed + 1.
  const seed = baseSeed + (name === 'Express router' ? 1 : 0);
  const unique = Math.round(total * 0.9);
  const posts = fc.sample(fuzzArbitrary(baseSeed), { seed, numRuns: unique });
  // About 10% are redeliveries: after every 9 posts, one earlier post again (same endpoint, same
  // body, a new request).
  const picks = fc.sample(fc.nat(), { seed: seed + 100, numRuns: total - unique });
  const plan = [];
  let pick = 0;
  for (let i = 0; i < posts.length; i += 1) {
    plan.push({ ...posts[i], redelivery: false });
    if (i % 9 === 8 && pick < picks.length) {
      plan.push({ ...posts[picks[pick] % (i + 1)], redelivery: true });
      pick += 1;
    }
  }
  const byStatus = new Map();
  const answers = new Array(plan.length);
  let bad5xx = 0;
  let nonJson = 0;
  const deadline = Date.now() + 60_000;
  let next = 0;
  async function worker() {
    while (next < plan.length && Date.now() < deadline) {
      const i = next;
      next += 1;
      const p = plan[i];
      const id = `fuzz-${name === 'Express router' ? 'x' : 'n'}-${i}`;
      const res = await pool.request({
        path: `/hooks${p.path}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body: p.body,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const text = await res.body.text();
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        nonJson += 1;
      }
      const code = res.statusCode === 200 ? (body?.duplicate ? 'duplicate' : 'ok') : body?.error?.code;
      const keyName = `${res.statusCode} ${code}`;
      byStatus.set(keyName, (byStatus.get(keyName) ?? 0) + 1);
      if (res.statusCode >= 500 && !(res.statusCode === 503 && DOCUMENTED_503.has(code))) bad5xx += 1;
      answers[i] = { id, status: res.statusCode, duplicate: body?.duplicate === true };
    }
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: 16 }, worker));
  const seconds = (performance.now() - started) / 1000;
  await receiver.idle();
  const sent = answers.filter(Boolean);
  const fresh200 = sent.filter((a) => a.status === 200 && !a.duplicate);
  const dup200 = sent.filter((a) => a.status === 200 && a.duplicate);
  const ranOnce = fresh200.filter((a) => rec.runs.get(a.id) === 1).length;
  const dupRan = dup200.filter((a) => rec.runs.has(a.id)).length;
  const nonOkRan = sent.filter((a) => a.status !== 200 && rec.runs.has(a.id)).length;
  const total400 = sent.filter((a) => a.status === 400).length;
  const s = receiver.stats().total;
  await receiver.close(1000);
  await pool.close();
  await stop(server);
  return {
    adapter: name,
    seed,
    requests: sent.length,
    planned: plan.length,
    redeliveries: plan.filter((p) => p.redelivery).length,
    seconds,
    byStatus: Object.fromEntries([...byStatus].sort()),
    undocumented5xx: bad5xx,
    nonJsonBodies: nonJson,
    ok200: fresh200.length,
    duplicates: dup200.length,
    fresh200RanExactlyOnce: ranOnce,
    duplicatesThatRan: dupRan,
    non200ThatRan: nonOkRan,
    callbacksRun: [...rec.runs.values()].reduce((a, b) => a + b, 0),
    answered400: total400,
    onInvalidCalls: rec.invalid.count,
    stats: {
      received: s.received,
      acked: s.acked,
      invalid: s.invalid,
      rejected: s.rejected,
      duplicates: s.duplicates,
    },
    identityHolds: s.received === s.acked + s.invalid + s.rejected,
  };
}

export async function run({ seed: baseSeed, fuzz: total }) {
  const half = Math.round(total / 2);
  const results = [
    await fuzzAdapter(baseSeed, 'node:http handler', half, ADAPTERS.node),
    await fuzzAdapter(baseSeed, 'Express router', total - half, ADAPTERS.express),
  ];
  console.log(
    `\nPart 1: fuzz (fast-check, seeds ${baseSeed} and ${baseSeed + 1}, 16 keep-alive connections each)`,
  );
  console.log(
    table(
      [
        'adapter',
        'requests',
        'redelivered',
        '200',
        'duplicate',
        '200 ran once',
        '4xx',
        '503',
        'other 5xx',
        'received=acked+invalid+rejected',
      ],
      results.map((r) => {
        const count = (prefix) =>
          Object.entries(r.byStatus)
            .filter(([k]) => k.startsWith(prefix))
            .reduce((a, [, v]) => a + v, 0);
        return [
          r.adapter,
          r.requests,
          r.redeliveries,
          r.ok200,
          r.duplicates,
          `${r.fresh200RanExactlyOnce}/${r.ok200}`,
          count('4'),
          count('503'),
          r.undocumented5xx,
          `${r.stats.received}=${r.stats.acked}+${r.stats.invalid}+${r.stats.rejected} ${r.identityHolds ? 'holds' : 'FAILS'}`,
        ];
      }),
    ),
  );
  const codes = new Set(results.flatMap((r) => Object.keys(r.byStatus)));
  console.log(
    table(
      ['answer', ...results.map((r) => r.adapter)],
      [...codes].sort().map((c) => [c, ...results.map((r) => r.byStatus[c] ?? 0)]),
    ),
  );
  for (const r of results) {
    console.log(
      `${r.adapter}: ${r.requests} in ${fixed(r.seconds, 1)} s; duplicates that ran ${r.duplicatesThatRan}, non-200 that ran ${r.non200ThatRan}, ` +
        `400s ${r.answered400} / onInvalid ${r.onInvalidCalls}, non-JSON bodies ${r.nonJsonBodies}`,
    );
  }
  return results;
}
