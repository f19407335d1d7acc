// The unlisted-enum check every validated payload goes through, compiled once per table
// (compileEnumFields): what findUnlistedEnumValues and parseWebhook report.
import { compileEnumFields, findUnlistedEnumValues } from '../../src/schemas/open-enum.js';
import { parseWebhook } from '../../src/schemas/index.js';
import { fixtures } from '../../src/testing/index.js';

const TABLE = { kind: ['A', 'B'], level: ['LOW', 'HIGH'] } as const;

describe('compileEnumFields', () => {
  const check = compileEnumFields(TABLE);

  it('finds each unlisted string value, in the order of the table', () => {
    expect(check({ level: 'MEDIUM', kind: 'C', other: 'x' })).toEqual([
      { field: 'kind', value: 'C' },
      { field: 'level', value: 'MEDIUM' },
    ]);
  });

  it('ignores documented values, absent fields and non-strings; shares one frozen empty answer', () => {
    const none = check({ kind: 'A', level: 7 });
    expect(none).toEqual([]);
    expect(Object.isFrozen(none)).toBe(true);
    expect(check({})).toBe(none);
    // A value named like an Object.prototype key is not "documented" by it.
    expect(check({ kind: 'toString' })).toEqual([{ field: 'kind', value: 'toString' }]);
  });

  it('findUnlistedEnumValues answers the same, as a fresh array', () => {
    const found = findUnlistedEnumValues({ kind: 'Z' }, TABLE);
    expect(found).toEqual([{ field: 'kind', value: 'Z' }]);
    found.push({ field: 'level', value: 'x' });
    expect(findUnlistedEnumValues({}, TABLE)).toEqual([]);
  });

  it('parseWebhook reports an unlisted delivery status, and none for a documented one', () => {
    const read = fixtures.status.READ;
    expect(parseWebhook('status', read)).toMatchObject({ success: true, unlisted: [] });
    expect(parseWebhook('status', { ...read, status: 'EXPLODED' })).toMatchObject({
      success: true,
      unlisted: [{ field: 'status', value: 'EXPLODED' }],
    });
  });
});
