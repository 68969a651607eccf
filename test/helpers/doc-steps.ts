/**
 * A document's steps followed as written, for the end-to-end tests of the README's static page and the token-proxy
 * guide's dev-server recipe: the code blocks of one section, one shell command as its environment and words, and a
 * command started as a child process until it says it is ready.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A doc's text with its ports swapped for a test's free ones, in one pass: `{ 4010: 24020, 4020: 27641 }`. Each
 * replaced port is a whole number (no digit either side), and a port put in is never matched again: one
 * `replaceAll` after another turned 4010 into 24020 and then that 4020 into the proxy's port ("127.0.0.1:227641").
 */
export function withPorts(text: string, ports: Record<string, number>): string {
  const pattern = new RegExp(`(?<!\\d)(${Object.keys(ports).join('|')})(?!\\d)`, 'g');
  return text.replace(pattern, (port) => String(ports[port]));
}

/** The code blocks of the section of `doc` (a path from the root) that starts with `heading`, up to `end`, in order. */
export function sectionBlocks(doc: string, heading: string, end = '\n## '): Array<{ lang: string; text: string }> {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const start = text.indexOf(heading);
  assert.ok(start >= 0, `${doc} has the section "${heading}"`);
  const section = text.slice(start, text.indexOf(end, start + heading.length));
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));
}

/** One shell command (continuation lines joined) as its environment assignments and words; the docs use no quoting. */
export function shellWords(line: string): { env: Record<string, string>; words: string[] } {
  const env: Record<string, string> = {};
  const words = line.trim().replace(/\s*&$/, '').split(/\s+/);
  while (words[0] && /^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  return { env, words };
}

/**
 * Starts `node <args>` in `cwd` with `env` added, kept in `children` (the caller stops them), and resolves once its
 * output matches `ready`; rejects if it exits or stays silent for `timeoutMs`.
 */
export function startNode(
  args: string[],
  options: { cwd: string; env: Record<string, string>; ready: RegExp; children: ChildProcess[]; timeoutMs: number },
): Promise<void> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  options.children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (options.ready.test(output)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`${args.join(' ')} did not start: ${output}`)), options.timeoutMs).unref();
  });
}
