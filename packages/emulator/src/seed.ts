import { createHash } from 'node:crypto';
import type { EmulatorSeed, EmulatorSeedInput, MemberRole, MemberStatus, SeedApp, SeedSpace, SeedUser } from './types.js';

/** The built-in demo seed (docs/architecture.md, "Demo seed"). A fresh copy every call. */
export function demoSeed(): EmulatorSeed {
  return {
    apps: [
      {
        clientId: 'demo-client',
        clientSecret: 'demo-secret',
        name: 'esign-elements demo',
        scopes: ['envelope:create', 'envelope:read'],
        redirectUris: [
          // the token proxy's callback as `npm start` and `esign-token-proxy` run it by default (the default mode's redirect URI)
          'http://localhost:4020/callback',
          'http://localhost:6006/iframe.html',
          'http://127.0.0.1:6006/iframe.html',
          'http://localhost:8080/',
          'http://127.0.0.1:8080/',
          'http://localhost:8000/',
          'http://localhost:8000/test/browser/callback.html',
          'http://127.0.0.1:8000/test/browser/callback.html',
          'com.example.esign:/oauth/callback',
        ],
        systemUserId: 'sys_demo-client',
      },
    ],
    users: [
      { userId: 'user_alice', email: 'alice@example.com', password: 'alice-password', name: 'Alice Tan' },
      { userId: 'user_bob', email: 'bob@example.com', password: 'bob-password', name: 'Bob Lim' },
      { userId: 'user_carol', email: 'carol@example.com', password: 'carol-password', name: 'Carol Wong' },
      { userId: 'user_dev', email: 'dev@example.com', password: 'dev-password', name: 'Dev Integrator' },
    ],
    spaces: [
      {
        spaceId: 'space_acme',
        name: 'Acme Legal',
        integrator: false,
        members: [
          { email: 'alice@example.com', role: 'admin', status: 'active' },
          { email: 'bob@example.com', role: 'member', status: 'active' },
        ],
      },
      {
        spaceId: 'space_alice',
        name: 'Alice Personal',
        integrator: false,
        members: [{ email: 'alice@example.com', role: 'admin', status: 'active' }],
      },
      {
        spaceId: 'space_integrator',
        name: 'Integrator Space',
        integrator: true,
        members: [{ email: 'dev@example.com', role: 'admin', status: 'active' }],
      },
    ],
  };
}

/** Deterministic user id for seed users given without one. */
export function userIdForEmail(email: string): string {
  return 'user_' + createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 12);
}

/** Merges a seed input into a base seed: extends it (same id/email overrides) unless `replace`. Throws on invalid input. */
export function mergeSeed(base: EmulatorSeed, input: EmulatorSeedInput): EmulatorSeed {
  const checked = parseSeedInput(input);
  const start: EmulatorSeed = checked.replace ? { apps: [], users: [], spaces: [] } : structuredClone(base);

  const apps = new Map<string, SeedApp>(start.apps.map((a) => [a.clientId, a]));
  for (const a of checked.apps ?? []) {
    apps.set(a.clientId, {
      clientId: a.clientId,
      clientSecret: a.clientSecret,
      name: a.name,
      scopes: [...a.scopes],
      redirectUris: [...a.redirectUris],
      systemUserId: a.systemUserId ?? `sys_${a.clientId}`,
    });
  }
  const users = new Map<string, SeedUser>(start.users.map((u) => [u.email.toLowerCase(), u]));
  for (const u of checked.users ?? []) {
    const key = u.email.toLowerCase();
    const previous = users.get(key);
    users.set(key, {
      userId: u.userId ?? previous?.userId ?? userIdForEmail(u.email),
      email: u.email,
      password: u.password,
      name: u.name,
    });
  }
  const spaces = new Map<string, SeedSpace>(start.spaces.map((s) => [s.spaceId, s]));
  for (const s of checked.spaces ?? []) {
    spaces.set(s.spaceId, {
      spaceId: s.spaceId,
      name: s.name,
      integrator: s.integrator ?? false,
      members: (s.members ?? []).map((m) => ({ email: m.email, role: m.role, status: m.status ?? 'active' })),
    });
  }

  const seed: EmulatorSeed = { apps: [...apps.values()], users: [...users.values()], spaces: [...spaces.values()] };
  checkSeedConsistency(seed);
  return seed;
}

function checkSeedConsistency(seed: EmulatorSeed): void {
  const ids = new Set<string>();
  for (const u of seed.users) {
    if (ids.has(u.userId)) throw new Error(`seed: duplicate userId ${u.userId}`);
    ids.add(u.userId);
  }
  const emails = new Set(seed.users.map((u) => u.email.toLowerCase()));
  for (const s of seed.spaces) {
    for (const m of s.members) {
      if (!emails.has(m.email.toLowerCase())) throw new Error(`seed: Space ${s.spaceId} names unknown member ${m.email}`);
    }
  }
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/** Validates untrusted seed JSON (the CLI's --config file). Throws an Error naming the bad field. */
export function parseSeedInput(json: unknown): EmulatorSeedInput {
  const fail = (what: string): never => {
    throw new Error(`seed: ${what}`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('must be a JSON object');
  const o = json as Record<string, unknown>;
  if (o.replace !== undefined && typeof o.replace !== 'boolean') fail('"replace" must be a boolean');
  const out: EmulatorSeedInput = { replace: o.replace === true };

  const list = (key: string): Record<string, unknown>[] | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x))) fail(`"${key}" must be an array of objects`);
    return v as Record<string, unknown>[];
  };

  const apps = list('apps');
  if (apps) {
    out.apps = apps.map((a, i) => {
      for (const k of ['clientId', 'clientSecret', 'name']) if (!isString(a[k])) fail(`apps[${i}].${k} must be a non-empty string`);
      if (!isStringArray(a.scopes)) fail(`apps[${i}].scopes must be an array of strings`);
      if (!isStringArray(a.redirectUris)) fail(`apps[${i}].redirectUris must be an array of strings`);
      if (a.systemUserId !== undefined && !isString(a.systemUserId)) fail(`apps[${i}].systemUserId must be a string`);
      return {
        clientId: a.clientId as string,
        clientSecret: a.clientSecret as string,
        name: a.name as string,
        scopes: a.scopes as string[],
        redirectUris: a.redirectUris as string[],
        ...(a.systemUserId !== undefined ? { systemUserId: a.systemUserId as string } : {}),
      };
    });
  }
  const users = list('users');
  if (users) {
    out.users = users.map((u, i) => {
      for (const k of ['email', 'password', 'name']) if (!isString(u[k])) fail(`users[${i}].${k} must be a non-empty string`);
      if (!/^[^\s@]+@[^\s@]+$/.test(u.email as string)) fail(`users[${i}].email is not an email address`);
      if (u.userId !== undefined && !isString(u.userId)) fail(`users[${i}].userId must be a string`);
      return {
        email: u.email as string,
        password: u.password as string,
        name: u.name as string,
        ...(u.userId !== undefined ? { userId: u.userId as string } : {}),
      };
    });
  }
  const spaces = list('spaces');
  if (spaces) {
    out.spaces = spaces.map((s, i) => {
      for (const k of ['spaceId', 'name']) if (!isString(s[k])) fail(`spaces[${i}].${k} must be a non-empty string`);
      if (s.integrator !== undefined && typeof s.integrator !== 'boolean') fail(`spaces[${i}].integrator must be a boolean`);
      const members = s.members ?? [];
      if (!Array.isArray(members)) fail(`spaces[${i}].members must be an array`);
      return {
        spaceId: s.spaceId as string,
        name: s.name as string,
        integrator: s.integrator === true,
        members: (members as unknown[]).map((m, j) => {
          if (typeof m !== 'object' || m === null) return fail(`spaces[${i}].members[${j}] must be an object`);
          const mm = m as Record<string, unknown>;
          if (!isString(mm.email)) fail(`spaces[${i}].members[${j}].email must be a string`);
          if (mm.role !== 'admin' && mm.role !== 'member') fail(`spaces[${i}].members[${j}].role must be "admin" or "member"`);
          if (mm.status !== undefined && mm.status !== 'active' && mm.status !== 'pending')
            fail(`spaces[${i}].members[${j}].status must be "active" or "pending"`);
          return {
            email: mm.email as string,
            role: mm.role as MemberRole,
            status: (mm.status as MemberStatus | undefined) ?? 'active',
          };
        }),
      };
    });
  }
  return out;
}
