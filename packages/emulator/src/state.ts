import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { EnvelopeStatus, OperateType } from '@esign-elements/shared';
import type { EmulatorLimits, EmulatorSeed, MemberRole, MemberStatus, SeedApp, SeedMember, SeedSpace, SeedUser } from './types.js';

/** Unguessable id: 32 random bytes, base64url. */
export function secureToken(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** Compares two secrets in constant time (for equal lengths). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** Short readable id for records (not a secret). */
export function shortId(prefix: string): string {
  return prefix + randomUUID().replace(/-/g, '').slice(0, 20);
}

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export interface UserRec {
  userId: string;
  email: string;
  name: string;
  /** undefined for users created by members/add until they accept the invitation. */
  password: string | undefined;
}

export interface MemberRec {
  userId: string;
  role: MemberRole;
  status: MemberStatus;
}

export interface SpaceRec {
  spaceId: string;
  name: string;
  integrator: boolean;
  members: Map<string, MemberRec>;
}

export interface AuthRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string;
  scope: string;
  spaceId: string | undefined;
  loginHint: string | undefined;
  loopbackHttp: boolean;
  expiresAt: number;
  /** Set once the person logged in; the login ticket travels in a hidden field. */
  login: { userId: string; ticket: string } | undefined;
}

export interface CodeRec {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  userId: string;
  spaceId: string;
  scope: string;
  expiresAt: number;
  used: boolean;
  /** The grant created when the code was exchanged; revoked if the code is replayed. */
  grantId: string | undefined;
}

export interface GrantRec {
  id: string;
  clientId: string;
  userId: string;
  spaceId: string;
  scope: string;
  revoked: boolean;
  accessTokens: Set<string>;
  refreshTokens: Set<string>;
}

export interface AccessTokenRec {
  grantId: string;
  scope: string;
  expiresAt: number;
}

export interface RefreshTokenRec {
  grantId: string;
  expiresAt: number;
  rotated: boolean;
  /** When it was rotated (emulator clock, ms). */
  rotatedAt?: number;
}

export interface FileRec {
  fileId: string;
  spaceId: string;
  name: string;
  size: number;
  sha256: string;
  bytes: Uint8Array;
  uploadedAt: number;
  uploadedBy: string;
}

export interface SignerRec {
  name: string;
  email: string;
  status: 'pending' | 'signed' | 'declined';
  /** Capability for the emailed signing link (usable without login). */
  token: string;
  signedAt: number | undefined;
}

export interface EnvelopeRec {
  envelopeId: string;
  spaceId: string;
  subject: string | undefined;
  fileIds: string[];
  senderUserId: string;
  signers: SignerRec[];
  status: EnvelopeStatus;
  createdAt: number;
  updatedAt: number;
}

export interface EmbeddedUrlRec {
  kind: OperateType;
  spaceId: string;
  userId: string;
  fileIds: string[];
  expiresAt: number;
  used: boolean;
}

export interface PageSession {
  id: string;
  kind: OperateType;
  spaceId: string;
  userId: string;
  fileIds: string[];
  expiresAt: number;
  /** One-shot message shown after a redirect (post/redirect/get). */
  flash: Array<Record<string, unknown>>;
}

export interface InvitationRec {
  spaceId: string;
  userId: string;
}

/** One email the emulator "sent" (its outbox; `GET /__emulator/outbox`). */
export interface OutboxEmail {
  id: string;
  to: string;
  subject: string;
  kind: 'invitation' | 'sign-request' | 'reminder' | 'envelope-completed';
  /** The invitation or signing link ('' when the email has none). */
  link: string;
  text: string;
  sentAt: string;
}

/** The values of Cross-Origin-Opener-Policy the consent pages may send. */
export const OPENER_POLICIES = ['same-origin', 'same-origin-allow-popups', 'unsafe-none'] as const;
export type OpenerPolicy = (typeof OPENER_POLICIES)[number];

export interface Fault {
  id: string;
  path: string;
  method: string | undefined;
  kind: 'delay' | 'status' | 'drop';
  status: number;
  delayMs: number;
  retryAfter: number | undefined;
  remaining: number;
  /** Error.Code of a status fault; default from the status. */
  code?: string;
  /** A delay or drop fault after the request was processed: its answer held, or its connection lost before the answer. */
  after?: true;
}

export interface LiveSnapshot {
  apps: SeedApp[];
  users: Array<Omit<SeedUser, 'password'> & { password: string | null }>;
  spaces: Array<Omit<SeedSpace, 'members'> & { members: Array<SeedMember & { userId: string }> }>;
}

/** How long revoked/expired records are kept so errors stay precise (expired vs unknown). */
const GRACE_MS = 24 * 3600 * 1000;

/** The whole in-memory service: seed data, live records and the emulator clock. */
export class Store {
  offsetMs = 0;
  users = new Map<string, UserRec>();
  spaces = new Map<string, SpaceRec>();
  apps = new Map<string, SeedApp>();
  authRequests = new Map<string, AuthRequest>();
  codes = new Map<string, CodeRec>();
  grants = new Map<string, GrantRec>();
  accessTokens = new Map<string, AccessTokenRec>();
  refreshTokens = new Map<string, RefreshTokenRec>();
  files = new Map<string, FileRec>();
  envelopes = new Map<string, EnvelopeRec>();
  embeddedUrls = new Map<string, EmbeddedUrlRec>();
  pageSessions = new Map<string, PageSession>();
  invitations = new Map<string, InvitationRec>();
  outbox: OutboxEmail[] = [];
  faults: Fault[] = [];
  /** Cross-Origin-Opener-Policy of the consent pages (none by default): EmulatorOptions.consentOpenerPolicy, or POST /__emulator/consent-page until reset. */
  consentOpenerPolicy: OpenerPolicy | undefined;
  /** What `reset` brings it back to: the option's. */
  consentOpenerPolicyDefault: OpenerPolicy | undefined;
  counters = new Map<string, number>();
  rate = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    readonly seed: EmulatorSeed,
    readonly limits: EmulatorLimits,
  ) {
    this.reset();
  }

  reset(): void {
    this.offsetMs = 0;
    for (const m of [
      this.users,
      this.spaces,
      this.apps,
      this.authRequests,
      this.codes,
      this.grants,
      this.accessTokens,
      this.refreshTokens,
      this.files,
      this.envelopes,
      this.embeddedUrls,
      this.pageSessions,
      this.invitations,
      this.counters,
      this.rate,
    ] as Map<string, unknown>[])
      m.clear();
    this.outbox = [];
    this.faults = [];
    this.consentOpenerPolicy = this.consentOpenerPolicyDefault;
    for (const a of this.seed.apps) this.apps.set(a.clientId, structuredClone(a));
    for (const u of this.seed.users) this.users.set(u.userId, { ...u });
    for (const s of this.seed.spaces) {
      const members = new Map<string, MemberRec>();
      for (const m of s.members) {
        const user = this.userByEmail(m.email);
        if (user) members.set(user.userId, { userId: user.userId, role: m.role, status: m.status });
      }
      this.spaces.set(s.spaceId, { spaceId: s.spaceId, name: s.name, integrator: s.integrator, members });
    }
  }

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  userByEmail(email: string): UserRec | undefined {
    const e = email.trim().toLowerCase();
    for (const u of this.users.values()) if (u.email.toLowerCase() === e) return u;
    return undefined;
  }

  /** Spaces the user is an active member of. */
  activeSpacesOf(userId: string): SpaceRec[] {
    return [...this.spaces.values()].filter((s) => s.members.get(userId)?.status === 'active');
  }

  isActiveMember(spaceId: string, userId: string): boolean {
    return this.spaces.get(spaceId)?.members.get(userId)?.status === 'active';
  }

  count(key: string): void {
    this.counters.set(key, (this.counters.get(key) ?? 0) + 1);
  }

  sendEmail(email: Omit<OutboxEmail, 'id' | 'sentAt'>): OutboxEmail {
    const full: OutboxEmail = { id: shortId('mail_'), sentAt: this.now().toISOString(), ...email };
    this.outbox.push(full);
    // bounded: the oldest mail goes first
    if (this.outbox.length > 1000) this.outbox.splice(0, this.outbox.length - 1000);
    return full;
  }

  /** Revokes a grant and every token issued under it. */
  revokeGrant(grantId: string): void {
    const g = this.grants.get(grantId);
    if (!g) return;
    g.revoked = true;
    for (const t of g.accessTokens) this.accessTokens.delete(t);
    for (const t of g.refreshTokens) this.refreshTokens.delete(t);
    g.accessTokens.clear();
    g.refreshTokens.clear();
  }

  /** Lazy sweep of expired records, at most once per emulator-clock second, so memory stays bounded. */
  sweep(): void {
    const now = this.nowMs();
    if (Math.abs(now - this.lastSweep) < 1000) return;
    this.lastSweep = now;
    for (const [k, v] of this.authRequests) if (v.expiresAt < now) this.authRequests.delete(k);
    for (const [k, v] of this.codes) if (v.expiresAt < now) this.codes.delete(k);
    for (const [k, v] of this.accessTokens) if (v.expiresAt + GRACE_MS < now) this.accessTokens.delete(k);
    for (const [k, v] of this.refreshTokens) if (v.expiresAt < now) this.refreshTokens.delete(k);
    for (const [k, g] of this.grants) {
      for (const t of g.accessTokens) if (!this.accessTokens.has(t)) g.accessTokens.delete(t);
      for (const t of g.refreshTokens) if (!this.refreshTokens.has(t)) g.refreshTokens.delete(t);
      if (g.accessTokens.size === 0 && g.refreshTokens.size === 0) this.grants.delete(k);
    }
    for (const [k, v] of this.embeddedUrls) if (v.expiresAt + GRACE_MS < now) this.embeddedUrls.delete(k);
    for (const [k, v] of this.pageSessions) if (v.expiresAt < now) this.pageSessions.delete(k);
    for (const [k, v] of this.rate) {
      const kept = v.filter((t) => t > now - 60_000);
      if (kept.length === 0) this.rate.delete(k);
      else this.rate.set(k, kept);
    }
  }

  /** A seed-shaped snapshot of the live users, apps and Spaces (members' current status). */
  snapshot(): LiveSnapshot {
    return {
      apps: [...this.apps.values()].map((a) => structuredClone(a)),
      users: [...this.users.values()].map((u) => ({ ...u, password: u.password ?? null })),
      spaces: [...this.spaces.values()].map((s) => ({
        spaceId: s.spaceId,
        name: s.name,
        integrator: s.integrator,
        members: [...s.members.values()].map((m): SeedMember & { userId: string } => ({
          userId: m.userId,
          email: this.users.get(m.userId)?.email ?? '',
          role: m.role,
          status: m.status,
        })),
      })),
    };
  }
}
