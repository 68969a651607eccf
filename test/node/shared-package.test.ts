/**
 * One error class across the packages: what `esign-elements/core` exports and what the token proxy throws are the
 * class of @esign-elements/shared, so an integrator's `instanceof EsignError` holds whichever package threw it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsignError as SharedError } from '@esign-elements/shared';
import { createTokenProxy } from '@esign-elements/token-proxy';
import { EsignError, isAllowedServiceUrl, PROXY_HEADER } from '../../src/core/index.js';
import * as shared from '@esign-elements/shared';

describe('esign-elements/core and @esign-elements/shared', () => {
  it('re-exports the shared modules, not copies of them', () => {
    assert.equal(EsignError, SharedError);
    assert.equal(isAllowedServiceUrl, shared.isAllowedServiceUrl);
    assert.equal(PROXY_HEADER, shared.PROXY_HEADER);
  });

  it('an error the token proxy throws is an EsignError of esign-elements/core', () => {
    assert.throws(
      () =>
        createTokenProxy({
          clientId: 'app',
          clientSecret: 'secret',
          baseUrl: 'http://esign.example.com',
          allowedOrigins: ['https://app.example.com'],
          cookieKeys: [],
        }),
      (error: unknown) => error instanceof EsignError && error.code === 'invalid_config',
    );
  });
});
