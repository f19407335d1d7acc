// The one argument parser of the bench's programs (bench/run.js, bench/reliability.js and the
// tools in bench/tools/): commander, with argParser for numbers and lists and choices for closed
// sets. Every program takes `--only=<list>`, resolved against its own registry of parts by number
// or by name.
import { Command, InvalidArgumentError, Option } from 'commander';

/** argParser: an integer ≥ `min`. */
export const integer =
  (min = 1) =>
  (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer >= ${min}`);
    return n;
  };

/** argParser: a number > 0. */
export function positive(value) {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number > 0');
  return n;
}

/** argParser: a comma-separated list, each item one of `choices` when given. */
export const list = (choices) => (value) => {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError('expected a comma-separated list');
  const unknown = choices === undefined ? [] : items.filter((item) => !choices.includes(item));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown ${unknown.join(', ')} (choose from ${choices.join(', ')})`);
  return items;
};

/**
 * Resolves one `--only` item against `registry` (entries `{ id, name, aliases? }`): a number, a
 * name or an alias (a retired number or a former name). Returns the entry, or undefined.
 */
function findEntry(registry, item) {
  const key = String(item).trim();
  return registry.find(
    (entry) => String(entry.id) === key || entry.name === key || (entry.aliases ?? []).includes(key),
  );
}

/** The `--only` option over `registry`: parses to the Set of the chosen entries' ids. */
function onlyOption(registry, what) {
  const names = registry.map((entry) => `${entry.id} ${entry.name}`).join(', ');
  return new Option('--only <list>', `run these ${what}s only, by number or name (${names})`).argParser(
    (value) => {
      const ids = new Set();
      for (const item of list()(value)) {
        const entry = findEntry(registry, item);
        if (entry === undefined) throw new InvalidArgumentError(`no ${what} "${item}" (${names})`);
        ids.add(entry.id);
      }
      return ids;
    },
  );
}

/**
 * A program named `name`: its own options are added by the caller; `registry` (optional) adds
 * `--only`. Parse with `parseArgs(program)`.
 */
export function createProgram(name, description, { registry, what = 'part' } = {}) {
  const program = new Command(name)
    .description(description)
    .allowExcessArguments(false)
    .showHelpAfterError('(--help lists the options)');
  if (registry) program.addOption(onlyOption(registry, what));
  return program;
}

/** Parses `argv` (default: this process's) and returns the options. */
export function parseArgs(program, argv = process.argv) {
  program.parse(argv);
  return program.opts();
}

export { Option };
