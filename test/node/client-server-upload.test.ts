/**
 * The multipart upload streams a file from disk: a 64 MiB file, opened with Node's `fs.openAsBlob` (a Blob
 * read lazily from disk), goes to the emulator's file-management domain while this process's heap and
 * ArrayBuffer memory grow by a small fraction of it. The emulator runs in another process (it holds the
 * upload it receives in memory, which must not count against the client). The FileId it answers opens an
 * embedded request_signatures page that names the file and its size.
 * A control measurement reads the same file whole into a Blob, to show the sampling sees a whole-file copy.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, openAsBlob, rmSync, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, test } from 'node:test';
import { createClient } from '../../src/core/service/client.js';
import { nodeStreamingFetch } from '../../src/core/node/fetch.js';
import type { TokenResponse } from '@esign-elements/shared/service-types';
import { DEMO_LOGIN, codeExchangeForm, obtainAuthorizationCode } from '@esign-elements/test-support/oauth-login';

const MiB = 1024 * 1024;
const FILE_BYTES = 64 * MiB;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let emulatorProcess: ChildProcess;
let baseUrl: string;
let fileUrl: string;
let dir: string;
let path: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'esign-upload-'));
  path = join(dir, 'big-contract.pdf');
  // written from one reused 1 MiB chunk: the test never holds the file's bytes
  const chunk = Buffer.alloc(MiB, 0x20);
  chunk.write('%PDF-1.4\n');
  const out = createWriteStream(path);
  for (let written = 0; written < FILE_BYTES; written += MiB) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');

  const emulatorModule = pathToFileURL(join(process.cwd(), 'packages/emulator/src/index.ts')).href;
  const script = `const { createEmulator } = await import(${JSON.stringify(emulatorModule)});
const emu = await createEmulator({ port: 0, filePort: 0, limits: { maxFileBytes: ${FILE_BYTES + MiB}, maxFilesPerRequest: 1 } });
process.stdout.write(JSON.stringify({ baseUrl: emu.baseUrl, fileUrl: emu.fileUrl }) + '\\n');`;
  emulatorProcess = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: emulatorProcess.stdout! }), 'line')) as [string];
  ({ baseUrl, fileUrl } = JSON.parse(line) as { baseUrl: string; fileUrl: string });
});

after(() => {
  emulatorProcess?.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function accessToken(): Promise<string> {
  const code = await obtainAuthorizationCode({ baseUrl, chooseSpaceId: 'space_acme' });
  const form = codeExchangeForm(code, DEMO_LOGIN.clientId);
  form.set('client_secret', DEMO_LOGIN.clientSecret);
  const response = await fetch(`${baseUrl}/openapi/v1/oauth/token`, { method: 'POST', body: form });
  const body = (await response.json()) as TokenResponse;
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token;
}

/**
 * Largest growth of live memory (heapUsed + arrayBuffers right after a full GC, so chunks already sent and
 * dropped do not count) over the baseline while `work` runs, sampled every 50 ms and once at the end.
 */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number; samples: number }> {
  const used = (): number => {
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const baseline = used();
  let peak = baseline;
  let samples = 0;
  const timer = setInterval(() => {
    samples += 1;
    peak = Math.max(peak, used());
  }, 50);
  try {
    const result = await work();
    peak = Math.max(peak, used());
    if (process.env.DEBUG_MEM) console.log('mem', baseline / MiB, peak / MiB, process.memoryUsage());
    return { result, growth: peak - baseline, samples };
  } finally {
    clearInterval(timer);
  }
}

test('control: the same sampling sees a whole-file copy (reading the file into memory first)', async () => {
  const { result, growth } = await peakGrowth(() => readFile(path));
  assert.equal(result.byteLength, FILE_BYTES);
  assert.ok(growth >= FILE_BYTES * 0.9, `a whole-file read shows ${(growth / MiB).toFixed(1)} MiB`);
});

test('a 64 MiB file streams from disk to the file-management domain; the FileId opens an embedded view', async () => {
  const token = await accessToken();
  const client = createClient({ baseUrl, fileUrl, tokens: { getAccessToken: async () => token }, retry: false, timeoutMs: 120_000, fetch: nodeStreamingFetch });
  // warm-up: the code paths of an upload are loaded (and compiled) before the measurement
  await client.uploadFileParts([{ content: new Blob(['%PDF-1.4\n']), name: 'warm-up.pdf' }]);

  const { result, growth, samples } = await peakGrowth(async () =>
    client.uploadFileParts([{ content: await openAsBlob(path, { type: 'application/pdf' }), name: 'big-contract.pdf' }]),
  );
  console.log(`upload of ${FILE_BYTES / MiB} MiB: peak live heap + ArrayBuffer growth ${(growth / MiB).toFixed(1)} MiB (${samples} samples)`);
  assert.ok(samples >= 3, 'memory was sampled while the upload ran');
  // streaming keeps the chunks in flight only: 0.4-17.5 MiB measured in runs on 2 CPUs (socket buffers and the sample's
  // moment decide), against the whole file (64 MiB: the control above, and Node's built-in fetch below)
  assert.ok(growth < FILE_BYTES / 3, `memory grew by ${(growth / MiB).toFixed(1)} MiB for a ${FILE_BYTES / MiB} MiB file`);
  assert.equal(result.status, 200);
  assert.match(result.requestId, /\S/);
  const [file] = result.data.Files;
  assert.equal(file?.FileName, 'big-contract.pdf');

  const view = await client.requestSignaturesView([file!.FileId]);
  const page = await fetch(view.data.Url);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.ok(
    new RegExp(`<li data-file-id="${file!.FileId}">big-contract\\.pdf <span class="muted">\\(64\\s?MiB\\)</span>`).test(html),
    `the embedded page lists the file with its size: ${html.match(/<li data-file-id[^\n]*/)?.[0]}`,
  );
});

test("for information: the same upload through Node's built-in fetch (it keeps the body's chunks until the connection closes)", async () => {
  const token = await accessToken();
  const client = createClient({ baseUrl, fileUrl, tokens: { getAccessToken: async () => token }, retry: false, timeoutMs: 120_000 });
  const { result, growth } = await peakGrowth(async () =>
    client.uploadFileParts([{ content: await openAsBlob(path, { type: 'application/pdf' }), name: 'big-contract.pdf' }]),
  );
  assert.equal(result.data.Files.length, 1);
  console.log(`built-in fetch, ${FILE_BYTES / MiB} MiB upload: peak live heap + ArrayBuffer growth ${(growth / MiB).toFixed(1)} MiB (Node ${process.version})`);
});
