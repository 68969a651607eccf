// `npm test`: every suite, as a small dependency graph run a few stages at a time (issue 36). One build for all;
// the tarball packed once, after it, for every test that installs it (ESIGN_PACK_DIR, test/helpers/built.ts).
// Each stage's output is kept in tmp/npm-test/<stage>.log (each file's durations, for finding the slow ones) and shown
// in full when it fails; a stage whose needs failed does not run.
//
//   npm test                         every stage
//   npm test -- node e2e             those stages and what they need
//   npm test -- --list               the stages, in order
//   ESIGN_TEST_JOBS=1 npm test       one stage at a time (default: one per core, at least 2; see CONTRIBUTING.md)
//
// A stage is { name, run (a shell command), needs (stages that must pass first) }. The list is in priority order:
// when more stages are ready than may run, the earlier ones start first, so the longest chains come first.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

const STAGES = [
  { name: 'build', run: 'npm run build:dist', needs: [] },
  // the five tarballs (browser kit and the four workspaces), packed once from the one build
  {
    name: 'pack',
    run: 'npm pack --workspaces --include-workspace-root --ignore-scripts --silent --pack-destination "$ESIGN_PACK_DIR"',
    needs: ['build'],
  },
  // the end-to-end files one at a time, each bounded at 15 min (a file that hangs fails with its name, not CI's 90 min),
  // then the static Storybook (its build, every story rendered, axe in four modes): `npm run test:e2e`
  { name: 'e2e', run: 'npm run test:e2e', needs: ['build', 'pack'] },
  { name: 'browser', run: 'npm run test:browser', needs: [] },
  { name: 'node', run: 'npm run test:node', needs: ['build'] },
  // each workspace's own tests (`npm test -w <name>`): the proxy, the emulator, the test kit, the shared core
  { name: 'packages', run: 'npm run test:packages', needs: ['build'] },
  { name: 'typecheck', run: 'npm run typecheck', needs: [] },
  { name: 'lint', run: 'npx eslint .', needs: [] },
  { name: 'templates', run: 'npm run lint:templates', needs: [] },
  { name: 'test:pack', run: 'npm run test:pack', needs: ['pack'] },
  { name: 'types', run: 'npm run test:types', needs: ['build'] },
  { name: 'format', run: 'npm run format:check', needs: [] },
  { name: 'manifest', run: 'npm run test:manifest', needs: [] },
];

const args = process.argv.slice(2);
if (args.includes('--list')) {
  for (const stage of STAGES) console.log(`${stage.name.padEnd(10)} ${stage.run}${stage.needs.length ? `   (needs ${stage.needs.join(', ')})` : ''}`);
  process.exit(0);
}

/** The stages asked for, with everything they need. */
function selected(names) {
  if (names.length === 0) return STAGES;
  const byName = new Map(STAGES.map((s) => [s.name, s]));
  const wanted = new Set();
  const add = (name) => {
    const stage = byName.get(name);
    if (!stage) throw new Error(`no stage "${name}" (npm test -- --list names them)`);
    if (wanted.has(name)) return;
    wanted.add(name);
    stage.needs.forEach(add);
  };
  names.forEach(add);
  return STAGES.filter((s) => wanted.has(s.name));
}

const stages = selected(args.filter((a) => !a.startsWith('-')));
const jobs = Number(process.env.ESIGN_TEST_JOBS) || Math.max(2, availableParallelism());
const packDir = mkdtempSync(join(tmpdir(), 'esign-test-pack-'));
const logDir = join('tmp', 'npm-test');
rmSync(logDir, { recursive: true, force: true });
mkdirSync(logDir, { recursive: true });
// no colours in the kept output: NO_COLOR, and no FORCE_COLOR at all (some libraries colour whenever it is set, even to 0)
const env = { ...process.env, ESIGN_PACK_DIR: packDir, NO_COLOR: '1' };
delete env.FORCE_COLOR;
const started = Date.now();

/**
 * The machine's busy and idle CPU time so far, in ms (Linux's /proc/stat; undefined elsewhere). The stages' own CPU
 * column counts only processes their shell reaped: a browser's renderers, whose parent is killed at the end, are
 * left out, so a browser stage shows a third or less of what it used. The machine's figure over the run is the true one.
 */
function machineCpu() {
  if (!existsSync('/proc/stat')) return undefined;
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const tick = 10; // USER_HZ is 100 on Linux: one tick is 10 ms
  const idle = (fields[3] + fields[4]) * tick; // idle + iowait
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0) * tick; // user nice system idle iowait irq softirq steal
  return { busy: total - idle, idle };
}
const cpuAtStart = machineCpu();
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
const clock = () => seconds(Date.now() - started).padStart(6);

/** name -> { status: 'waiting' | 'running' | 'passed' | 'failed' | 'skipped', ms, output, child } */
const state = new Map(stages.map((s) => [s.name, { status: 'waiting', ms: 0, output: '' }]));

function run(stage) {
  const entry = state.get(stage.name);
  entry.status = 'running';
  const t0 = Date.now();
  console.log(`${clock()}  start  ${stage.name}: ${stage.run}`);
  // bash's `times` reports the CPU its children used (the stage's processes, once they are reaped) on fd 3
  const script = `${stage.run}\nstatus=$?\ntimes >&3\nexit $status`;
  const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached: true });
  entry.child = child;
  child.stdout.on('data', (chunk) => (entry.output += chunk));
  child.stderr.on('data', (chunk) => (entry.output += chunk));
  let times = '';
  child.stdio[3].on('data', (chunk) => (times += chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      entry.ms = Date.now() - t0;
      entry.cpuMs = childrenCpuMs(times);
      entry.status = code === 0 ? 'passed' : 'failed';
      entry.child = undefined;
      writeFileSync(join(logDir, `${stage.name}.log`), entry.output);
      console.log(`${clock()}  ${entry.status === 'passed' ? 'pass ' : 'FAIL '}  ${stage.name} (${seconds(entry.ms)})`);
      if (entry.status === 'failed') {
        const bar = '-'.repeat(20);
        console.log(`${bar} ${stage.name}: exit ${code ?? signal}, its whole output ${bar}\n${entry.output.trimEnd()}\n${bar} end of ${stage.name} ${bar}`);
      }
      resolve();
    });
  });
}

/** The children's user + system time from bash's `times` (its second line: "1m2.345s 0m3.210s"), in ms. */
function childrenCpuMs(times) {
  const line = times.trim().split('\n')[1] ?? '';
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, s]) => Number(m) * 60_000 + Number(s) * 1000);
  return parts.length === 2 ? parts[0] + parts[1] : undefined;
}

/** Runs every stage whose needs passed, at most `jobs` at once; a stage whose needs failed is skipped. */
async function schedule() {
  const running = new Set();
  for (;;) {
    for (const stage of stages) {
      const entry = state.get(stage.name);
      if (entry.status !== 'waiting') continue;
      const needs = stage.needs.filter((n) => state.has(n)).map((n) => state.get(n).status);
      if (needs.some((s) => s === 'failed' || s === 'skipped')) {
        entry.status = 'skipped';
        console.log(`${clock()}  skip   ${stage.name} (needs ${stage.needs.join(', ')})`);
        continue;
      }
      if (running.size < jobs && needs.every((s) => s === 'passed')) {
        const promise = run(stage).then(() => running.delete(promise));
        running.add(promise);
      }
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }
}

function stopAll(signal) {
  for (const entry of state.values()) if (entry.child?.pid) process.kill(-entry.child.pid, 'SIGTERM');
  rmSync(packDir, { recursive: true, force: true });
  process.exit(signal === 'SIGINT' ? 130 : 143);
}
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);

console.log(`npm test: ${stages.length} stages, ${jobs} at a time`);
await schedule();
rmSync(packDir, { recursive: true, force: true });

const total = Date.now() - started;
// time: the stage's wall clock (longer when stages share the cores); cpu: what its reaped processes used (user + system)
console.log(`\n${'stage'.padEnd(10)} ${'result'.padEnd(8)} ${'time'.padStart(7)} ${'cpu'.padStart(7)}`);
let cpuTotal = 0;
for (const stage of stages) {
  const { status, ms, cpuMs } = state.get(stage.name);
  cpuTotal += cpuMs ?? 0;
  const cpu = cpuMs === undefined ? '' : seconds(cpuMs);
  console.log(`${stage.name.padEnd(10)} ${status.padEnd(8)} ${status === 'skipped' ? '' : seconds(ms).padStart(7)} ${cpu.padStart(7)}`);
}
const failed = stages.filter((s) => state.get(s.name).status !== 'passed').map((s) => s.name);
console.log(
  `${'total'.padEnd(10)} ${(failed.length ? 'FAILED' : 'passed').padEnd(8)} ${seconds(total).padStart(7)} ${seconds(cpuTotal).padStart(7)}` +
    `  wall clock; cpu over ${availableParallelism()} cores`,
);
const cpuAtEnd = machineCpu();
if (cpuAtStart && cpuAtEnd) {
  const busy = cpuAtEnd.busy - cpuAtStart.busy;
  const all = busy + cpuAtEnd.idle - cpuAtStart.idle;
  console.log(
    `machine    ${seconds(busy)} of CPU busy out of ${seconds(all)} (${((100 * busy) / all).toFixed(0)}%): the whole run, browsers' renderers included`,
  );
}
console.log(`each stage's output: ${logDir}/<stage>.log`);
if (failed.length) console.log(`not passed: ${failed.join(', ')} (each failing stage's output is printed above in full)`);
process.exit(failed.length ? 1 : 0);
