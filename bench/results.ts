/** Benchmarks record their numbers here: bench/results.json, one key per benchmark, merged. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export const RESULTS_FILE = new URL('./results.json', import.meta.url);

export function readResults(): Record<string, unknown> {
  return existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Record<string, unknown>) : {};
}

/** Merges `data` under `key`, with when and where it was measured. */
export function recordResults(key: string, data: Record<string, unknown>): void {
  const all = readResults();
  all[key] = {
    ...data,
    measuredAt: new Date().toISOString(),
    machine: { cpus: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(all, null, 2)}\n`);
}

/** Prints rows as an aligned table. */
export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const width = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(width[i]!)).join('  ');
  console.log(line(columns));
  console.log(line(width.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(columns.map((c) => String(row[c] ?? ''))));
}
