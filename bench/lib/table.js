// Small formatting helpers for the printed report.

/** Renders rows (arrays of cells) as a fixed-width table; numbers are right-aligned. */
export function table(header, rows) {
  const all = [header, ...rows].map((row) => row.map((cell) => (cell === undefined ? '-' : String(cell))));
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column].length)));
  const line = (row, raw) =>
    row
      .map((cell, column) =>
        typeof raw[column] === 'number' || /^[\d.,×%+-]+[a-zµ%×]*$/.test(cell)
          ? cell.padStart(widths[column])
          : cell.padEnd(widths[column]),
      )
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(all[0], header), rule, ...all.slice(1).map((row, i) => line(row, rows[i]))].join('\n');
}

export const fixed = (value, digits = 2) =>
  value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);
export const int = (value) =>
  value === undefined || Number.isNaN(value) ? '-' : Math.round(value).toString();
export const ratio = (value) => (value === undefined || Number.isNaN(value) ? '-' : `${value.toFixed(2)}×`);
export const percent = (value) =>
  value === undefined || Number.isNaN(value) ? '-' : `${(value * 100).toFixed(1)}%`;
export const verdict = (pass) => (pass === undefined ? '-' : pass ? 'PASS' : 'FAIL');

/** The median of numbers (mean of the middle two for an even count). */
export function median(values) {
  const sorted = values.filter((value) => value !== undefined && !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The geometric mean of positive numbers. */
export function geomean(values) {
  const usable = values.filter((value) => value > 0);
  if (usable.length === 0) return undefined;
  return Math.exp(usable.reduce((sum, value) => sum + Math.log(value), 0) / usable.length);
}
