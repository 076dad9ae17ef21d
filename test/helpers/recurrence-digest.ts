/**
 * Child process of FEATURES.md §1.6 case 20: expands the seeded sample of case 19 in this process's time zone
 * (set by the parent through TZ) and prints a JSON digest of the results on stdout.
 * Usage: node dist/test/helpers/recurrence-digest.js <seed> <runs>
 */
import { digest } from './recurrence-oracle.js';

const [seed, runs] = process.argv.slice(2).map(Number);
if (!Number.isInteger(seed) || !Number.isInteger(runs)) throw new Error('usage: recurrence-digest.js <seed> <runs>');
process.stdout.write(`${JSON.stringify(digest(seed, runs))}\n`);
