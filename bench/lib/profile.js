// Reads a V8 .cpuprofile (node --cpu-prof) and sums self time per function and per group
// (a package in node_modules, a folder of this library's dist/, node's internals, GC), idle
// time excluded, so the report says where a server's CPU went.
import { readFileSync } from 'node:fs';

function groupOf(url, functionName) {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native/builtin)';
  if (url.startsWith('node:'))
    return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(5).split('/').slice(0, 2).join('/') : url.slice(5)}`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  const lib = url.match(/\/dist\/(.+?)(?:\/[^/]+)?\.js$/);
  if (lib) return `lib:${lib[1].split('/')[0]}`;
  if (url.includes('/bench/')) return 'bench harness';
  return url;
}

/** Self-time shares per group and per function, largest first. */
export function summarizeProfile(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const groups = new Map();
  const functions = new Map();
  let total = 0;
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') continue;
    total += micros;
    const group = groupOf(url, functionName);
    groups.set(group, (groups.get(group) ?? 0) + micros);
    const short = url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\//, '');
    const key = `${functionName || '(anonymous)'} (${short || 'native'}${url ? `:${lineNumber + 1}` : ''})`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
  }
  const ranked = (map) =>
    [...map.entries()]
      .map(([name, micros]) => ({ name, share: micros / total, ms: micros / 1000 }))
      .sort((a, b) => b.share - a.share);
  return { file, busyMs: total / 1000, groups: ranked(groups), functions: ranked(functions) };
}
