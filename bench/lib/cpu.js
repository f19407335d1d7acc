// Whole-machine CPU accounting from /proc/stat, to tell how much of the machine other processes
// (not the bench's server and load generator) used during a measurement.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** Busy CPU seconds of the whole machine so far, or undefined where /proc/stat is missing. */
export function machineBusySeconds() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
