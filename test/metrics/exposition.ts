/** The samples of a Prometheus text exposition, keyed `name{label="value",...}` with labels sorted. */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`unparsed exposition line: ${line}`);
    const [, name, labels = '', value] = match;
    const sorted = labels === '' ? [] : labels.split(/,(?=[a-z_]+=")/).sort();
    out.set(sorted.length === 0 ? name! : `${name}{${sorted.join(',')}}`, Number(value));
  }
  return out;
}

/** The key of one series in {@link samples}. */
export const key = (name: string, labels: Record<string, string>): string =>
  `${name}{${Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .sort()
    .join(',')}}`;
