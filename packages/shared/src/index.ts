/** `@esign-elements/shared`: what the browser kit and the servers both import, one definition for both sides. */
export * from './errors.js';
export * from './service-types.js';
export * from './url.js';
export { base64url } from './base64url.js';
export { PROXY_HEADER, PROXY_HEADER_VALUE } from './proxy-header.js';
