/**
 * Deepest nesting of objects and arrays a request body may hold (the body itself is depth 1). Far
 * above any documented body; a value stored from one (a free-form field of a user or a client)
 * then sits at most a few levels deeper in a snapshot, well within {@link MAX_SNAPSHOT_DEPTH}, so
 * whatever a request stores can be snapshotted and restored.
 */
export const MAX_BODY_DEPTH = 32;

/**
 * Deepest nesting a snapshot or a seed may hold (the snapshot itself is depth 1). A value nested
 * deeper (a 400,000-deep array in a free-form field) would be kept, and then break every later
 * snapshot: copying and serialising it recurse past the stack.
 */
export const MAX_SNAPSHOT_DEPTH = 64;

/**
 * The path (`users.0.profile.0.0…`) of the first object or array of `value` nested deeper than
 * `maxDepth`, or undefined when there is none. Iterative (an explicit stack), so a value of any
 * depth is walked without recursion.
 */
export function nestedTooDeep(value: unknown, maxDepth: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // containers only, with their parent's index and key: a path is built only for the culprit
  const nodes: object[] = [value];
  const depths: number[] = [1];
  const parents: number[] = [-1];
  const keys: string[] = [''];
  const stack: number[] = [0];
  while (stack.length > 0) {
    const at = stack.pop()!;
    const node = nodes[at]!;
    const depth = depths[at]!;
    if (depth > maxDepth) return pathOf(at, parents, keys);
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((item, index): [string, unknown] => [String(index), item])
      : Object.entries(node);
    for (const [key, child] of entries) {
      if (typeof child !== 'object' || child === null) continue;
      stack.push(nodes.length);
      nodes.push(child);
      depths.push(depth + 1);
      parents.push(at);
      keys.push(key);
    }
  }
  return undefined;
}

function pathOf(at: number, parents: readonly number[], keys: readonly string[]): string {
  const path: string[] = [];
  for (let index = at; index > 0; index = parents[index]!) path.push(keys[index]!);
  return path.reverse().join('.');
}
