/**
 * RFC 9207 in the page (the browser-held mode, where the page receives the authorization answer): an `iss` in it must
 * name the issuer this sign-in went to, compared exactly. By default that is the base URL; `issuer` names another (an
 * authorization server apart from the API, or one whose issuer ends in a slash, as Auth0's does). Checked before the
 * code goes anywhere. (In the default mode the token proxy's callback makes the same check: proxy-attacks.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
import { validateConfig } from '../../src/core/session/config.js';
import { sessionKeyOf, type SessionConfig } from '../../src/core/session/session-manager.js';
import { LoginAttempts } from '../../src/core/sign-in/login.js';

const base: SessionConfig = {
  clientId: 'app',
  baseUrl: 'https://esign.example.com/',
  tokenEndpoint: 'https://app.example.com/api/esign/token',
  redirectUri: 'https://app.example.com/sign',
  scope: 'envelope:read',
  storage: 'memory',
  refreshTokens: 'browser',
};

/** A started sign-in answered with `iss`; the token proxy is not reachable, so getting past the check means a network error. */
async function answerWith(config: SessionConfig, iss: string): Promise<EsignError> {
  // the browser-held mode's sign-in part, as the sign-in flow makes it
  const part = new LoginAttempts(config, sessionKeyOf(config));
  const { state } = await part.begin('popup');
  try {
    await part.complete(new URLSearchParams({ code: 'code-1', state, iss }));
  } catch (error) {
    return EsignError.from(error);
  }
  assert.fail('the sign-in was expected to fail');
}

describe('the iss of an authorization answer', () => {
  const unreachableProxy = { tokenEndpoint: 'https://127.0.0.1:9/token' };
  test('by default it must be the base URL (without its trailing slash)', async () => {
    const refused = await answerWith({ ...base, ...unreachableProxy }, 'https://evil.example.com');
    assert.equal(refused.code, 'oauth_error');
    assert.match(refused.message, /another issuer/);
    const accepted = await answerWith({ ...base, ...unreachableProxy }, 'https://esign.example.com');
    assert.equal(accepted.code, 'network_error', 'past the check, the code went to the (unreachable) proxy');
  });

  test('with issuer set, exactly that value (a trailing slash included)', async () => {
    const config = { ...base, ...unreachableProxy, issuer: 'https://login.example.com/' };
    assert.equal((await answerWith(config, 'https://login.example.com/')).code, 'network_error');
    assert.equal((await answerWith(config, 'https://login.example.com')).code, 'oauth_error');
    assert.equal((await answerWith(config, 'https://esign.example.com')).code, 'oauth_error');
  });

  test('an issuer must be an https URL (or loopback http) without credentials', () => {
    for (const issuer of ['http://login.example.com', 'not a url', 'https://u:p@login.example.com']) {
      assert.throws(
        () => validateConfig({ ...base, issuer }),
        (error: unknown) => error instanceof EsignError && error.code === 'invalid_config',
      );
    }
  });
});
