import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
import { isAccepted, validateFiles } from '../../src/core/upload/check-files.js';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_UPLOAD_TIMEOUT_MS, parseAccept, parseLimits } from '../../src/core/upload/validate.js';

const f = (name: string, size: number, type = '') => ({ name, size, type });

describe('uploader settings', () => {
  it('defaults to the service limits: 20 MiB, office/PDF/image types, no count limit', () => {
    const limits = parseLimits({});
    assert.equal(limits.maxSize, DEFAULT_MAX_FILE_BYTES);
    assert.equal(limits.maxFiles, Infinity);
    assert.ok(limits.accept.includes('.pdf') && limits.accept.includes('application/pdf') && limits.accept.includes('.docx'));
  });

  it('reads numbers from attributes and caps a single-file uploader at one', () => {
    assert.deepEqual(parseLimits({ maxSize: '1024', maxFiles: '3', accept: '.pdf', requestTimeout: '1500' }), {
      accept: ['.pdf'],
      maxSize: 1024,
      maxFiles: 3,
      requestTimeout: 1500,
    });
    assert.equal(parseLimits({}).requestTimeout, DEFAULT_UPLOAD_TIMEOUT_MS);
    assert.equal(parseLimits({ requestTimeout: 0 }).requestTimeout, 0);
    assert.equal(parseLimits({ maxFiles: 3, multiple: false }).maxFiles, 1);
    assert.equal(parseLimits({ multiple: false }).maxFiles, 1);
  });

  it('refuses negative, zero or non-numeric values with invalid_config', () => {
    for (const input of [
      { maxSize: -1 },
      { maxSize: 0 },
      { maxSize: 'big' },
      { maxSize: Number.NaN },
      { maxFiles: 'abc' },
      { maxFiles: 1.5 },
      { maxFiles: -2 },
      { accept: 'pdf' },
      { requestTimeout: -1 },
      { requestTimeout: 'soon' },
    ]) {
      assert.throws(
        () => parseLimits(input),
        (e: EsignError) => e instanceof EsignError && e.code === 'invalid_config',
        JSON.stringify(input),
      );
    }
  });

  it('parses accept as the file input does', () => {
    assert.deepEqual(parseAccept(' .PDF , image/* ,application/pdf,'), ['.pdf', 'image/*', 'application/pdf']);
    assert.deepEqual(parseAccept(''), []);
  });
});

describe('file checks before reading', () => {
  it('matches by extension, wildcard or exact MIME type; empty accept takes anything', () => {
    assert.ok(isAccepted(f('Contract.PDF', 1), ['.pdf']));
    assert.ok(isAccepted(f('scan', 1, 'image/jpeg'), ['image/*']));
    assert.ok(isAccepted(f('x', 1, 'application/pdf; charset=binary'), ['application/pdf']));
    assert.ok(!isAccepted(f('evil.exe', 1, 'application/x-msdownload'), ['.pdf', 'image/*']));
    assert.ok(isAccepted(f('evil.exe', 1), []));
  });

  it('rejects each bad file with its own code and keeps the others, in order', () => {
    const limits = parseLimits({ maxSize: 100, maxFiles: 3 });
    const files = [f('a.pdf', 10), f('b.exe', 10), f('c.pdf', 101), f('d.pdf', 0), f('e.pdf', 10), f('g.png', 5, 'image/png'), f('h.pdf', 1)];
    const { accepted, rejected } = validateFiles(files, limits);
    assert.deepEqual(
      accepted.map((x) => x.name),
      ['a.pdf', 'e.pdf', 'g.png'],
    );
    assert.deepEqual(
      rejected.map((r) => [r.file.name, r.error.code]),
      [
        ['b.exe', 'file_type_not_accepted'],
        ['c.pdf', 'file_too_large'],
        ['d.pdf', 'invalid_argument'],
        ['h.pdf', 'too_many_files'],
      ],
    );
  });

  it('counts the files already held against max-files', () => {
    const limits = parseLimits({ maxFiles: 2 });
    const { accepted, rejected } = validateFiles([f('a.pdf', 1), f('b.pdf', 1)], limits, 1);
    assert.deepEqual(
      accepted.map((x) => x.name),
      ['a.pdf'],
    );
    assert.equal(rejected[0]?.error.code, 'too_many_files');
  });
});
