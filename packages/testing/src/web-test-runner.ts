/**
 * `@esign-elements/testing/web-test-runner`: the kit's people as web-test-runner server commands, for tests that run in
 * the browser (with `@web/test-runner-playwright`, whose pages the sign-in drives). A test calls them with
 * `executeServerCommand('esign-sign-in', { person: 'alice' })` from `@web/test-runner-commands`. Guide:
 * docs/guides/testing.md.
 */
import type { Page } from '@playwright/test';
import { EsignError } from '@esign-elements/shared';
import type { EmulatorFault, EsignServices } from './index.js';
import { PEOPLE, type EsignPerson } from './people.js';
import { signInWithPopup } from './person.js';

/** What the commands see of web-test-runner's session: its Playwright launcher gives the test's page. */
interface CommandSession {
  id: string;
  browser: { getPage?(sessionId: string): unknown };
}

/** A web-test-runner plugin (the subset this uses), so no web-test-runner types are needed to use it. */
export interface EsignTestRunnerPlugin {
  name: string;
  executeCommand(args: { command: string; payload?: unknown; session: CommandSession }): Promise<unknown> | undefined;
  serverStop(): Promise<void>;
}

/** The services as a test page needs them (`esign-services`): no secret. */
export interface EsignPageConfig {
  baseUrl: string;
  clientId: string;
  tokenEndpoint: string;
  connectAttributes: string;
}

const personOf = (value: unknown): EsignPerson => {
  if (typeof value === 'string' && value in PEOPLE) return PEOPLE[value as keyof typeof PEOPLE];
  if (value && typeof value === 'object' && 'email' in value && 'password' in value) return value as EsignPerson;
  if (value === undefined) return PEOPLE.alice;
  throw new EsignError('invalid_argument', 'person: a name of PEOPLE (alice, bob, carol, dev) or {email, password, name, space}.');
};

/**
 * Commands `esign-services` (the config a page needs), `esign-sign-in` ({person, button, decision}: the consent popup),
 * `esign-accept-invitation` ({email, password}), `esign-sign-envelope` / `esign-decline-envelope` ({email,
 * envelopeId}), `esign-outbox`, `esign-advance-clock` ({seconds}), `esign-fault` (an EmulatorFault) and `esign-reset`;
 * the services close with the test server. Serve the test pages on an origin given to `startEsignServices` in
 * `siteOrigins` (web-test-runner's `http://localhost:<port>`).
 */
export function esignTestRunnerPlugin(services: EsignServices): EsignTestRunnerPlugin {
  const run = async (command: string, payload: Record<string, unknown>, session: CommandSession): Promise<unknown> => {
    switch (command) {
      case 'esign-services':
        return {
          baseUrl: services.baseUrl,
          clientId: services.clientId,
          tokenEndpoint: services.tokenEndpoint,
          connectAttributes: services.connectAttributes,
        } satisfies EsignPageConfig;
      case 'esign-sign-in': {
        const page = session.browser.getPage?.(session.id) as Page | undefined;
        if (!page || typeof (page as { waitForEvent?: unknown }).waitForEvent !== 'function') {
          throw new EsignError('invalid_config', 'esign-sign-in needs the Playwright launcher (@web/test-runner-playwright).');
        }
        const decision = payload['decision'] === 'deny' ? 'deny' : 'agree';
        await signInWithPopup(page, personOf(payload['person']), { decision, ...(typeof payload['button'] === 'string' ? { button: payload['button'] } : {}) });
        return true;
      }
      case 'esign-accept-invitation':
        await services.acceptInvitation(String(payload['email']), typeof payload['password'] === 'string' ? { password: payload['password'] } : {});
        return true;
      case 'esign-sign-envelope':
      case 'esign-decline-envelope': {
        const options = typeof payload['envelopeId'] === 'string' ? { envelopeId: payload['envelopeId'] } : {};
        return command === 'esign-sign-envelope'
          ? services.signEnvelope(String(payload['email']), options)
          : services.declineEnvelope(String(payload['email']), options);
      }
      case 'esign-outbox':
        return services.outbox();
      case 'esign-advance-clock':
        return services.advanceClock(Number(payload['seconds'] ?? 0)).toISOString();
      case 'esign-fault':
        return services.injectFault(payload as unknown as EmulatorFault);
      case 'esign-reset':
        services.reset();
        return true;
      default:
        return undefined;
    }
  };
  return {
    name: 'esign-elements-testing',
    executeCommand({ command, payload, session }) {
      // another plugin's command: not ours to answer
      if (!command.startsWith('esign-')) return undefined;
      return run(command, (payload ?? {}) as Record<string, unknown>, session);
    },
    serverStop: () => services.close(),
  };
}
