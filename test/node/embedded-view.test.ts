import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { autoConverter, legacyOff, fileIdsConverter, listChanged, parseList, settingsFault } from '../../src/elements/embedded-view/rules.js';
import {
  allowedOriginsFor,
  checkEmbeddedUrl,
  configProblem,
  EXPIRY_MARGIN_MS,
  isEsignMessage,
  isExpired,
  parseInstant,
} from '../../src/elements/embedded-view/url-rules.js';

type Settings = { display: unknown; allowedOrigins: unknown; loadTimeout: unknown; requestTimeout?: unknown };
/** What the view's controller says of these settings on a page of `pageOrigin`: the check (first render), then its words. */
const problemOf = (settings: Settings, pageOrigin?: string): string | undefined => configProblem(settings, settingsFault(settings, pageOrigin), pageOrigin);

describe('embedded view rules', () => {
  it('reads space- or comma-separated lists, without empties or repeats', () => {
    assert.deepEqual(parseList(' file_a, file_b  file_c,,file_a '), ['file_a', 'file_b', 'file_c']);
    assert.deepEqual(parseList(''), []);
    assert.deepEqual(parseList(null), []);
    assert.deepEqual(parseList(['x', ' y ', 'x']), ['x', 'y']);
    assert.deepEqual(fileIdsConverter.fromAttribute('a b,c'), ['a', 'b', 'c']);
    assert.equal(fileIdsConverter.toAttribute(['a', 'b']), 'a b');
  });

  it('allows the base URL origin by default, else the listed origins (normalized)', () => {
    assert.deepEqual(allowedOriginsFor('', 'https://esign.example.com/openapi/v1'), ['https://esign.example.com']);
    assert.deepEqual(allowedOriginsFor('https://A.example.com:443/x, http://127.0.0.1:4010 ftp://no.example junk', 'https://b.example.com'), [
      'https://a.example.com',
      'http://127.0.0.1:4010',
    ]);
  });

  it('accepts an https or loopback-http Url only from an allowed origin, and never echoes it', () => {
    const allowed = ['https://esign.example.com', 'http://127.0.0.1:4010'];
    const token = 'embedded_token=SECRET';
    assert.deepEqual(checkEmbeddedUrl(`https://esign.example.com/embedded/view?${token}`, allowed), { ok: true, origin: 'https://esign.example.com' });
    assert.deepEqual(checkEmbeddedUrl(`http://127.0.0.1:4010/embedded/view?${token}`, allowed), { ok: true, origin: 'http://127.0.0.1:4010' });
    const refused = [
      `https://evil.example.com/embedded/view?${token}`,
      `https://esign.example.com.evil.example/x?${token}`,
      `https://esign.example.com:8443/x?${token}`,
      `http://esign.example.com/x?${token}`,
      `http://127.0.0.1:4011/x?${token}`,
      `/embedded/view?${token}`,
      `//esign.example.com/embedded/view?${token}`,
      `javascript:alert(1)//${token}`,
      `data:text/html,${token}`,
      `https://user:pass@esign.example.com/x?${token}`,
      '',
      42,
      undefined,
    ];
    for (const url of refused) {
      const result = checkEmbeddedUrl(url, allowed);
      assert.equal(result.ok, false, String(url));
      if (!result.ok) assert.ok(!result.reason.includes('SECRET'), result.reason);
    }
  });

  it('compares ExpiresAt as instants, with any offset', () => {
    const z = parseInstant('2026-11-21T10:05:00Z');
    assert.equal(z, Date.UTC(2026, 10, 21, 10, 5, 0));
    assert.equal(parseInstant('2026-11-21T18:05:00+08:00'), z);
    assert.equal(parseInstant('2026-11-21T05:05:00-05:00'), z);
    assert.equal(parseInstant('2026-11-21t10:05:00z'), z);
    assert.equal(parseInstant('2026-11-21T10:05:00.123456Z'), z! + 123);
    // a later string can be an earlier instant
    assert.ok('2026-11-21T18:00:00+08:00' > '2026-11-21T10:05:00Z');
    assert.ok(parseInstant('2026-11-21T18:00:00+08:00')! < z!);
    for (const bad of ['2026-11-21', '2026-11-21T10:05:00', 'tomorrow', '', 1700000000, null]) assert.equal(parseInstant(bad), undefined, String(bad));
  });

  it('treats a Url as expired from ExpiresAt minus a margin', () => {
    const at = Date.UTC(2026, 0, 1);
    assert.equal(isExpired(at, at - EXPIRY_MARGIN_MS - 1), false);
    assert.equal(isExpired(at, at - EXPIRY_MARGIN_MS), true);
    assert.equal(isExpired(at, at + 1), true);
    assert.equal(isExpired(at, at - 1, 0), false);
  });

  it("recognizes the embedded pages' messages", () => {
    assert.equal(isEsignMessage({ source: 'esign', type: 'ready' }), true);
    assert.equal(isEsignMessage({ source: 'other', type: 'ready' }), false);
    assert.equal(isEsignMessage({ source: 'esign' }), false);
    assert.equal(isEsignMessage('esign'), false);
    assert.equal(isEsignMessage(null), false);
  });

  it('reads `auto` as an HTML boolean (on when present, whatever its value), save the deprecated "false", "off", "0"', () => {
    assert.equal(autoConverter.fromAttribute(null), false);
    assert.equal(autoConverter.fromAttribute(''), true);
    assert.equal(autoConverter.fromAttribute('true'), true);
    assert.equal(autoConverter.fromAttribute('auto'), true);
    assert.equal(autoConverter.fromAttribute('false'), false);
    assert.equal(autoConverter.fromAttribute(' OFF '), false);
    assert.equal(legacyOff('0'), true);
    assert.equal(legacyOff('no'), false);
    assert.equal(legacyOff(null), false);
  });

  it('sees a FileIds list as changed only when its items change', () => {
    assert.equal(listChanged(['a', 'b'], ['a', 'b']), false);
    assert.equal(listChanged(['a', 'b'], ['b', 'a']), true);
    assert.equal(listChanged([], undefined), false);
  });
});

describe('configProblem: bad settings are reported, never thrown', () => {
  const good = { display: 'inline', allowedOrigins: '', loadTimeout: 15000 };
  it('accepts the defaults, popup display, listed origins and a zero timeout', () => {
    assert.equal(problemOf(good), undefined);
    assert.equal(problemOf({ ...good, display: 'popup', allowedOrigins: 'https://a.example.com, http://127.0.0.1:4010', loadTimeout: 0 }), undefined);
  });
  for (const [name, patch, mention] of [
    ['an unknown display', { display: 'sideways' }, 'display'],
    ['a negative load-timeout', { loadTimeout: -1 }, 'load-timeout'],
    ['a non-numeric load-timeout', { loadTimeout: Number('soon') }, 'load-timeout'],
    ['a negative request-timeout', { requestTimeout: -5 }, 'request-timeout must be a number of milliseconds, 0 or more, not "-5"'],
    ['a non-numeric request-timeout', { requestTimeout: Number('soon') }, 'request-timeout'],
    ['a non-URL origin', { allowedOrigins: 'https://ok.example.com not-an-origin' }, 'not-an-origin'],
    ['a non-http origin', { allowedOrigins: 'ftp://files.example.com' }, 'ftp://files.example.com'],
  ] as const) {
    it(`names ${name}`, () => {
      const problem = problemOf({ ...good, ...patch });
      assert.ok(problem?.includes(mention), `the problem names ${mention}: ${problem}`);
    });
  }

  it("refuses the host page's own origin in allowed-origins: a same-origin frame can lift its sandbox", () => {
    const page = 'https://app.example.com';
    const problem = problemOf({ ...good, allowedOrigins: 'https://esign.example.com https://app.example.com/' }, page);
    assert.ok(problem?.includes(page) && /sandbox/.test(problem), problem);
    assert.equal(problemOf({ ...good, allowedOrigins: 'https://esign.example.com' }, page), undefined);
    // another port is another origin
    assert.equal(problemOf({ ...good, allowedOrigins: 'https://app.example.com:8443' }, page), undefined);
  });

  it("refuses an embedded Url of the host page's own origin even when it is allowed", () => {
    const page = 'http://localhost:6006';
    const result = checkEmbeddedUrl('http://localhost:6006/embedded/s/x', ['http://localhost:6006'], page);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /own origin/);
    assert.equal(checkEmbeddedUrl('http://127.0.0.1:4010/embedded/s/x', ['http://127.0.0.1:4010'], page).ok, true);
  });
});
