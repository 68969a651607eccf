import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

describe('server-side import', () => {
  it('importing the package and each tag module in Node does not throw', async () => {
    const root = await import('../../src/index.js');
    assert.equal(typeof root.EsignConnect, 'function');
    assert.equal(typeof root.EsignError, 'function');
    const tag = await import('../../src/esign-connect.js');
    assert.equal(typeof tag.EsignConnect, 'function');
  });

  it('importing the element classes registers no tag; importing a tag module does', () => {
    // a fresh process, so no earlier import has registered anything
    const script = `
      const classes = await import('./src/elements/index.ts');
      const before = customElements.get('esign-connect');
      await import('./src/esign-connect.ts');
      console.log(JSON.stringify({ hasClass: typeof classes.EsignConnect, before: before === undefined, after: customElements.get('esign-connect') === classes.EsignConnect }));
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { hasClass: 'function', before: true, after: true });
  });
});
