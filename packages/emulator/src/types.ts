/**
 * Public types of the service emulator: options, limits and the seed.
 * Every limit here is an (assumption) of the project, see shared/design.md; they are settings.
 */

export type MemberRole = 'admin' | 'member';
export type MemberStatus = 'active' | 'pending';

export interface SeedApp {
  clientId: string;
  clientSecret: string;
  name: string;
  scopes: string[];
  /** Registered redirect URIs, compared exactly. */
  redirectUris: string[];
  /** The app's automatically associated system user (spec section 2). */
  systemUserId: string;
}

export interface SeedUser {
  userId: string;
  email: string;
  /** Plain text on purpose: the emulator is a development tool and prints it. */
  password: string;
  name: string;
}

export interface SeedMember {
  email: string;
  role: MemberRole;
  status: MemberStatus;
}

export interface SeedSpace {
  spaceId: string;
  name: string;
  integrator: boolean;
  members: SeedMember[];
}

export interface EmulatorSeed {
  apps: SeedApp[];
  users: SeedUser[];
  spaces: SeedSpace[];
}

/** The `--config` JSON: partial entries, defaults filled in by `mergeSeed`. */
export interface EmulatorSeedInput {
  /** true: the input replaces the base seed; otherwise it extends it (same id/email overrides). */
  replace?: boolean;
  apps?: Array<Omit<SeedApp, 'systemUserId'> & { systemUserId?: string }>;
  users?: Array<Omit<SeedUser, 'userId'> & { userId?: string }>;
  spaces?: Array<{
    spaceId: string;
    name: string;
    integrator?: boolean;
    members?: Array<{ email: string; role: MemberRole; status?: MemberStatus }>;
  }>;
}

export interface EmulatorLimits {
  /** (assumption) largest decoded file, bytes. */
  maxFileBytes: number;
  /** (assumption) files per upload request. */
  maxFilesPerRequest: number;
  /** (assumption) business requests per minute per access token. */
  requestsPerMinute: number;
  /** (assumption) authorization code lifetime. */
  codeTtlSeconds: number;
  /** Access token lifetime (the spec's expires_in: 3600). */
  accessTokenTtlSeconds: number;
  /** (assumption) refresh token lifetime. */
  refreshTokenTtlSeconds: number;
  /**
   * (assumption) How long a just-rotated refresh token is still accepted (answered with a fresh pair) instead of
   * revoking the grant. 0, the default, follows design.md: any reuse revokes the grant. Some services allow a few
   * seconds so a client whose refresh answer was lost on the network can try again.
   */
  refreshReuseGraceSeconds: number;
  /** (assumption) embedded Url lifetime (ExpiresAt). */
  embeddedUrlTtlSeconds: number;
  /** (assumption) how long an embedded page stays usable after its Url was opened. */
  embeddedSessionTtlSeconds: number;
  /** How long a pending authorization request (the consent page) stays usable. */
  authRequestTtlSeconds: number;
}

export const DEFAULT_LIMITS: EmulatorLimits = {
  maxFileBytes: 20 * 1024 * 1024,
  maxFilesPerRequest: 10,
  requestsPerMinute: 60,
  codeTtlSeconds: 300,
  accessTokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
  refreshReuseGraceSeconds: 0,
  embeddedUrlTtlSeconds: 300,
  embeddedSessionTtlSeconds: 3600,
  authRequestTtlSeconds: 600,
};

export type OriginList = string[] | '*';

export interface EmulatorOptions {
  /** Business API port; 0 = random (default 0). */
  port?: number;
  /** File-management domain port; 0 = random (default 0). */
  filePort?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Origin put into returned Urls and redirects; default the bound business origin. */
  publicUrl?: string;
  /** Replaces or extends the demo seed (see mergeSeed). */
  seed?: EmulatorSeedInput;
  /** Origins allowed by CORS; default any loopback origin (http(s)://localhost|127.0.0.1|[::1], any port). */
  corsOrigins?: OriginList;
  /** Origins allowed to frame the embedded pages; default any loopback origin plus corsOrigins. */
  frameAncestors?: OriginList;
  limits?: Partial<EmulatorLimits>;
  /**
   * Development: accept any plain-http loopback redirect_uri (localhost, 127.0.0.1, [::1]; any port and path) for every
   * app, besides the registered ones, so a page served from any local port can sign in (as RFC 8252 §7.3 allows any
   * port for loopback redirects). Default false: redirect URIs must match exactly, as on the real service.
   */
  devRedirects?: boolean;
  /**
   * A `Cross-Origin-Opener-Policy` the consent pages send, as many identity providers' sign-in pages do: `same-origin`
   * severs the sign-in popup from the page that opened it (docs/security.md). Default none. Tests may change it at run
   * time with `POST /__emulator/consent-page` until the next reset.
   */
  consentOpenerPolicy?: 'same-origin' | 'same-origin-allow-popups' | 'unsafe-none';
  /** Silent by default; the CLI prints. Never receives tokens, codes or secrets. */
  log?: (line: string) => void;
}

export interface RunningEmulator {
  /** Service base, e.g. http://127.0.0.1:4010 (paths /openapi/v1/... are appended). */
  baseUrl: string;
  /** File-management domain, e.g. http://127.0.0.1:4011. */
  fileUrl: string;
  seed: EmulatorSeed;
  /** Back to the seed, clock offset 0, faults, outbox and counters cleared. */
  reset(): void;
  advanceClock(seconds: number): void;
  now(): Date;
  /** Changes limits from now on (e.g. a short access-token lifetime in a test); `reset()` does not undo it. */
  setLimits(limits: Partial<EmulatorLimits>): void;
  /**
   * Registers one more redirect URI for an app (e.g. a token proxy's callback, known once it listens); kept by
   * `reset()`. Throws for an unknown client_id.
   */
  registerRedirectUri(clientId: string, redirectUri: string): void;
  /**
   * Takes the service off the network (`true`) or back on: while off, both servers reset every open connection and
   * every new one, which is what a browser that lost its network sees (a fetch fails as a network error, never with an
   * answer). Requests under way are cut, not answered later. For tests of offline handling in any browser engine.
   */
  setOffline(offline: boolean): void;
  close(): Promise<void>;
}
