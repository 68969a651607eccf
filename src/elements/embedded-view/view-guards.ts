/**
 * What stops an embedded view before the service is reached, one job: the element's settings (a bad one is reported
 * once as `invalid_config`, and cleared once fixed) and the page's Content-Security-Policy (a blocked frame or call
 * is reported at once as `csp_blocked`, naming the directive and the origin to add). Loaded with the view's controller.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { blockedOrigin, cspBlocked, originOf } from '../../core/service/csp-violation.js';
import type { EsignError } from '../../core/errors.js';
import { configProblem } from './page-rules.js';
import { hostPageOrigin, settingsFault } from './rules.js';

export interface GuardedHost extends ReactiveControllerHost, HTMLElement {
  display: unknown;
  allowedOrigins: unknown;
  loadTimeout: unknown;
}

/** What the CSP watch reads of the view: the origin of its page (while a frame loads) and of its service. */
export interface CspTargets {
  /** The Url's origin while an inline frame loads, else undefined. */
  frameOrigin(): string | undefined;
  /** The service's base URL. */
  serviceUrl(): string | undefined;
}

export class SettingsGuard {
  #reported: string | undefined;
  readonly #host: GuardedHost;

  constructor(host: GuardedHost) {
    this.#host = host;
  }

  /** What is wrong with the element's settings now, in words (undefined: nothing). */
  problem(): string | undefined {
    const pageOrigin = hostPageOrigin();
    return configProblem(this.#host, settingsFault(this.#host as never, pageOrigin), pageOrigin);
  }

  /** A bad setting goes to `report` once, and `fixed` runs once it is fixed. True while a setting is bad. */
  check(report: (problem: string) => void, fixed: () => void): boolean {
    const problem = this.problem();
    if (problem) {
      if (problem !== this.#reported) report((this.#reported = problem));
      return true;
    }
    if (this.#reported) {
      this.#reported = undefined;
      fixed();
    }
    return false;
  }
}

/** Watches `securitypolicyviolation` while the element is connected: a blocked frame-src or connect-src of the view's origins. */
export class CspWatch implements ReactiveController {
  readonly #targets: CspTargets;
  readonly #onBlocked: (error: EsignError) => void;

  constructor(host: ReactiveControllerHost, targets: CspTargets, onBlocked: (error: EsignError) => void) {
    this.#targets = targets;
    this.#onBlocked = onBlocked;
    host.addController(this);
  }

  hostConnected(): void {
    document.addEventListener('securitypolicyviolation', this.#onViolation);
  }

  hostDisconnected(): void {
    document.removeEventListener('securitypolicyviolation', this.#onViolation);
  }

  readonly #onViolation = (event: SecurityPolicyViolationEvent): void => {
    const frameOrigin = this.#targets.frameOrigin();
    const frame = frameOrigin ? blockedOrigin(event, 'frame-src', [frameOrigin]) : undefined;
    if (frame) return this.#onBlocked(cspBlocked('frame-src', frame));
    const service = blockedOrigin(event, 'connect-src', [originOf(this.#targets.serviceUrl())]);
    if (service) this.#onBlocked(cspBlocked('connect-src', service));
  };
}
