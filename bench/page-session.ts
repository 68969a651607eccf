/**
 * Page script shared by the browser benches: <bench-session>, a session provider (the public connect="ID" interface:
 * baseUrl, session, operatorUserId, getAccessToken) holding a token minted in Node (`window.bench.accessToken`), so
 * no sign-in happens inside a measured span.
 */
export const BENCH_SESSION = `
class BenchSession extends HTMLElement {
  get baseUrl() { return window.bench.baseUrl; }
  get session() { return { scope: ['envelope:create'], spaceId: 'space_acme', expiresAt: new Date(Date.now() + 3600e3), connectedAt: new Date() }; }
  get operatorUserId() { return undefined; }
  async getAccessToken() { return window.bench.accessToken; }
}
customElements.define('bench-session', BenchSession);
`;
