// The error type lives in @esign-elements/shared, which the servers import too: one class, so `instanceof EsignError`
// holds across esign-elements and @esign-elements/token-proxy.
export { EsignError, isAbortError, partNotLoaded } from '@esign-elements/shared/errors';
export type { EsignErrorCode, EsignErrorOptions, SerializedEsignError } from '@esign-elements/shared/errors';
