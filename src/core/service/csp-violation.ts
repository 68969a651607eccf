/**
 * The page's Content-Security-Policy blocking a call or a frame of the elements (`securitypolicyviolation`), told as what it
 * is: `csp_blocked`, with the directive and the origin to add, instead of a network error or a frame that never loads.
 */
import { EsignError } from '@esign-elements/shared/errors';

export type CspDirective = 'connect-src' | 'frame-src';

export function cspBlocked(directive: CspDirective, origin: string): EsignError {
  const error = new EsignError(
    'csp_blocked',
    `This page's Content-Security-Policy blocks ${origin}: add it to ${directive} (npx esign-token-proxy --print-csp prints what the page needs).`,
  );
  return Object.assign(error, { directive });
}

/**
 * Records the page's `connect-src` violations while a call is under way; `blockedFor(url)`, asked once the call
 * failed, says whether the policy was why (the violation is reported in a task of its own, after the failure).
 * Outside a browser (server code) it records nothing.
 */
export function watchConnectSrc(): { blockedFor(url: string): Promise<EsignError | undefined>; stop(): void } {
  const doc = typeof document === 'undefined' ? undefined : document;
  const seen: SecurityPolicyViolationEvent[] = [];
  const record = (event: SecurityPolicyViolationEvent): void => void seen.push(event);
  doc?.addEventListener('securitypolicyviolation', record);
  return {
    async blockedFor(url) {
      if (!doc) return undefined;
      const origin = originOf(url);
      for (let wait = 0; wait < 3 && !seen.some((event) => blockedOrigin(event, 'connect-src', [origin])); wait++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      return seen.some((event) => blockedOrigin(event, 'connect-src', [origin])) ? cspBlocked('connect-src', origin!) : undefined;
    },
    stop: () => doc?.removeEventListener('securitypolicyviolation', record),
  };
}

/** The origin, of `origins`, whose URL this violation of `directive` blocked; undefined when it is another one. */
export function blockedOrigin(event: SecurityPolicyViolationEvent, directive: CspDirective, origins: Array<string | undefined>): string | undefined {
  if (event.effectiveDirective !== directive) return undefined;
  let origin: string;
  try {
    origin = new URL(event.blockedURI).origin;
  } catch {
    return undefined;
  }
  return origins.includes(origin) ? origin : undefined;
}

/** The origin of `url` (resolved against the page), or undefined. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url, document.baseURI).origin;
  } catch {
    return undefined;
  }
}
