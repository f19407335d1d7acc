/**
 * The three functions of `semver` (in the tree through @arethetypeswrong/cli, without
 * types) that test/types/otel-peer-range.test.ts uses.
 */
declare module 'semver' {
  const semver: {
    intersects(range1: string, range2: string): boolean;
    subset(sub: string, dom: string): boolean;
    satisfies(version: string, range: string): boolean;
  };
  export default semver;
}
