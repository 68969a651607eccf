/** Every element, given malformed attributes: a clear invalid_config esign-error, a visible error, no throw; fixed, it recovers. */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/index.js';
import type { EsignError } from '@esign-elements/shared/errors';
import { cfg, once, until } from './helpers.js';

interface Case {
  tag: string;
  bad: Record<string, string>;
  fix: Record<string, string>;
  mention: RegExp;
}

const cases: Case[] = [
  { tag: 'esign-connect', bad: { mode: 'sideways' }, fix: { mode: 'popup' }, mention: /mode/ },
  { tag: 'esign-connect', bad: { 'base-url': 'ftp://files.example.com' }, fix: { 'base-url': cfg.baseUrl }, mention: /base-url/ },
  { tag: 'esign-uploader', bad: { 'max-size': '-5' }, fix: { 'max-size': '1000' }, mention: /max-size/ },
  { tag: 'esign-uploader', bad: { 'max-files': 'many' }, fix: { 'max-files': '3' }, mention: /max-files/ },
  { tag: 'esign-signing-frame', bad: { display: 'sideways' }, fix: { display: 'inline' }, mention: /display/ },
  { tag: 'esign-signing-frame', bad: { 'load-timeout': '-1' }, fix: { 'load-timeout': '1000' }, mention: /load-timeout/ },
  { tag: 'esign-contract-list', bad: { 'allowed-origins': 'not-an-origin' }, fix: { 'allowed-origins': cfg.baseUrl }, mention: /allowed-origins/ },
];

describe('malformed attributes', () => {
  for (const { tag, bad, fix, mention } of cases) {
    it(`<${tag} ${Object.entries(bad)
      .map(([k, v]) => `${k}="${v}"`)
      .join(' ')}> reports invalid_config, shows it and recovers`, async () => {
      const wrapper = await fixture(html`<div></div>`);
      const el = document.createElement(tag) as HTMLElement & { updateComplete: Promise<boolean> };
      if (tag === 'esign-connect') {
        el.setAttribute('client-id', cfg.clientId);
        el.setAttribute('base-url', cfg.baseUrl);
        el.setAttribute('token-endpoint', cfg.tokenEndpoint);
        el.setAttribute('storage', 'memory');
      } else if (tag === 'esign-contract-list') {
        el.setAttribute('manual', '');
      }
      wrapper.append(el);
      await el.updateComplete;
      const reported = once(el, 'esign-error');
      expect(() => Object.entries(bad).forEach(([name, value]) => el.setAttribute(name, value))).not.to.throw();
      const { detail } = (await reported) as CustomEvent<{ error: EsignError }>;
      expect(detail.error.code).to.equal('invalid_config');
      expect(detail.error.message).to.match(mention);
      await el.updateComplete;
      const alert = () => el.shadowRoot!.querySelector('[part~="error"]');
      await until(() => alert() !== null, 'an error is visible');
      expect(alert()!.textContent).to.match(mention);
      await expect(el).shadowDom.to.be.accessible();

      Object.entries(fix).forEach(([name, value]) => el.setAttribute(name, value));
      await until(() => alert() === null, 'the error clears once the attribute is fixed');
    });
  }
});
