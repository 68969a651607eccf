/**
 * <esign-demo-session>: a story-only session provider (not part of the library). It asks the local emulator's test
 * helper for a ready access token (`POST /__emulator/token`), so state stories (loading, expired, blocked, rejected,
 * service error) show their state at once instead of waiting for someone to sign in. Elements use it with
 * `connect="ID"`, exactly as they use an <esign-connect>.
 */
import type { SessionInfo } from '../src/core/session/session-manager.js';
import type { SessionProvider } from '../src/elements/shared/session-context.js';
import { demo } from './demo-config.js';

type DemoSession = SessionInfo;

/**
 * @attr base-url - The emulator to ask (default: the demo's).
 * @attr fault - A test fault (JSON, the emulator's `/__emulator/faults` body) registered before any call.
 */
export class EsignDemoSession extends HTMLElement implements SessionProvider {
  #token: Promise<string> | undefined;
  #session: DemoSession | undefined;

  get baseUrl(): string {
    return this.getAttribute('base-url') ?? demo.baseUrl;
  }

  get session(): SessionInfo | undefined {
    return this.#session;
  }

  readonly operatorUserId = undefined;

  connectedCallback(): void {
    this.hidden = true;
    this.#token ??= this.#fetch();
    this.#token.catch((error: unknown) => console.info('demo session unavailable (is the emulator running?)', error));
  }

  getAccessToken(): Promise<string> {
    this.#token ??= this.#fetch();
    return this.#token;
  }

  async #fetch(): Promise<string> {
    // a test fault for the state to show (e.g. a slow or failing embedded/views), registered before any call
    const fault = this.getAttribute('fault');
    // a story starts from a clean service: no fault left by the story shown before
    await fetch(`${this.baseUrl}/__emulator/faults`, { method: 'DELETE' }).catch(() => undefined);
    if (fault) await fetch(`${this.baseUrl}/__emulator/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: fault });
    const res = await fetch(`${this.baseUrl}/__emulator/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email: this.getAttribute('email') ?? 'alice@example.com',
        spaceId: this.getAttribute('space-id') ?? 'space_acme',
        clientId: demo.clientId,
      }),
    });
    if (!res.ok) throw new Error(`the emulator answered ${res.status}`);
    const body = (await res.json()) as {
      access_token: string;
      expires_in: number;
      scope: string;
      space_id: string;
      user_name?: string;
      user_email?: string;
      space_name?: string;
    };
    this.#session = {
      scope: body.scope.split(' '),
      spaceId: body.space_id,
      refreshTokens: 'proxy',
      expiresAt: new Date(Date.now() + body.expires_in * 1000),
      connectedAt: new Date(),
      userName: body.user_name,
      userEmail: body.user_email,
      spaceName: body.space_name,
    };
    this.dispatchEvent(new CustomEvent('esign-connected', { detail: { session: this.#session, restored: false }, bubbles: true, composed: true }));
    return body.access_token;
  }
}

/**
 * Registers the tag. Called from the stories (a plain `import './demo-session.js'` is dropped by the bundler: the
 * package's "sideEffects" list names only the library's defining modules).
 */
export function defineDemoSession(): void {
  if (!customElements.get('esign-demo-session')) customElements.define('esign-demo-session', EsignDemoSession);
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-demo-session': EsignDemoSession;
  }
}
