// Compares the targets of two results files of `npm run bench` (bench/results/<timestamp>.json):
// each target's measured value in both, their relative difference, and whether the two runs agree
// within the tolerance (default ±5 %) and on the verdict. Exits non-zero when a ratio target
// differs by more than the tolerance or changes verdict, or when a target is in one file only.
//
//   node bench/tools/compare-results.js bench/results/<first>.json bench/results/<second>.json [--tolerance=0.05]
import { readFileSync } from 'node:fs';
import { createProgram, parseArgs, positive } from '../lib/args.js';
import { table, verdict } from '../lib/table.js';

const program = createProgram('compare-results', 'Do two bench runs agree on every target?')
  .argument('<first>', 'a results file')
  .argument('<second>', 'another results file')
  .option('--tolerance <share>', 'largest relative difference accepted for a ratio target', positive, 0.05);
const options = parseArgs(program);
const [firstFile, secondFile] = program.args;

const targetsOf = (file) => {
  const results = JSON.parse(readFileSync(file, 'utf8'));
  return new Map(results.targets.map((t) => [`${t.scenario}. ${t.name}`, t]));
};
const first = targetsOf(firstFile);
const second = targetsOf(secondFile);

let disagreements = 0;
const rows = [];
for (const name of new Set([...first.keys(), ...second.keys()])) {
  const a = first.get(name);
  const b = second.get(name);
  if (a === undefined || b === undefined) {
    disagreements += 1;
    rows.push([
      name,
      a?.measured?.toFixed(3) ?? '-',
      b?.measured?.toFixed(3) ?? '-',
      '-',
      '-',
      'in one run only',
    ]);
    continue;
  }
  const ratio = a.limit.includes('×');
  const difference = (b.measured - a.measured) / a.measured;
  const agrees = (!ratio || Math.abs(difference) <= options.tolerance) && a.pass === b.pass;
  if (!agrees) disagreements += 1;
  rows.push([
    name,
    a.measured.toFixed(3),
    b.measured.toFixed(3),
    `${(difference * 100).toFixed(1)}%`,
    `${verdict(a.pass)} / ${verdict(b.pass)}`,
    agrees ? 'agree' : 'DISAGREE',
  ]);
}
console.log(table(['target', 'first', 'second', 'difference', 'verdicts', ''], rows));
console.log(
  `${rows.length - disagreements} of ${rows.length} targets agree (ratio targets within ±${(options.tolerance * 100).toFixed(0)} %, same verdict)`,
);
process.exitCode = disagreements === 0 ? 0 : 1;
