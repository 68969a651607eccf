import type { EnvelopeData } from '@esign-elements/shared';
import { rfc3339, ServiceError } from './http.js';
import type { Runtime } from './runtime.js';
import { type EnvelopeRec, type FileRec, secureToken, sha256Hex, shortId, type UserRec } from './state.js';

export const EMAIL_RE = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

export function envelopeData(env: EnvelopeRec): EnvelopeData {
  return {
    EnvelopeId: env.envelopeId,
    Status: env.status,
    ...(env.subject !== undefined ? { Subject: env.subject } : {}),
    FileIds: [...env.fileIds],
    Signers: env.signers.map((s) => ({ Name: s.name, Email: s.email, Status: s.status })),
    CreatedAt: rfc3339(env.createdAt),
    UpdatedAt: rfc3339(env.updatedAt),
  };
}

/** Stores decoded files in a Space, all or nothing (the caller validated them). */
export function storeFiles(rt: Runtime, spaceId: string, uploadedBy: string, files: Array<{ name: string; bytes: Uint8Array }>): FileRec[] {
  const now = rt.store.nowMs();
  return files.map((f) => {
    const rec: FileRec = {
      fileId: shortId('file_'),
      spaceId,
      name: f.name,
      size: f.bytes.byteLength,
      sha256: sha256Hex(f.bytes),
      bytes: f.bytes,
      uploadedAt: now,
      uploadedBy,
    };
    rt.store.files.set(rec.fileId, rec);
    return rec;
  });
}

/** Checks a file name from a request; returns a message when it is not acceptable. */
export function fileNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.trim() === '') return 'FileName must be a non-empty string.';
  if (name.length > 255) return 'FileName is longer than 255 characters.';
  if (/[\u0000-\u001f]/.test(name)) return 'FileName contains control characters.';
  return undefined;
}

/** FileIds must all be in the Space; others answer 404 without saying they exist elsewhere. */
export function filesInSpace(rt: Runtime, spaceId: string, fileIds: string[]): FileRec[] {
  return [...new Set(fileIds)].map((id) => {
    const f = rt.store.files.get(id);
    if (!f || f.spaceId !== spaceId) throw new ServiceError(404, 'ResourceNotFound.File', `File ${id} was not found.`);
    return f;
  });
}

function signLink(rt: Runtime, env: EnvelopeRec, token: string): string {
  return `${rt.publicUrl}/embedded/envelopes/${encodeURIComponent(env.envelopeId)}?signer=${encodeURIComponent(token)}`;
}

function mailSigners(rt: Runtime, env: EnvelopeRec, kind: 'sign-request' | 'reminder'): void {
  const sender = rt.store.users.get(env.senderUserId);
  for (const s of env.signers) {
    if (s.status !== 'pending') continue;
    const title = env.subject ?? 'a document';
    rt.store.sendEmail({
      to: s.email,
      kind,
      subject: kind === 'reminder' ? `Reminder: please sign ${title}` : `Please sign ${title}`,
      link: signLink(rt, env, s.token),
      text: `${sender?.name ?? 'Someone'} asks you to sign "${title}". Open the link to review and sign.`,
    });
  }
}

export function createEnvelope(
  rt: Runtime,
  input: { spaceId: string; senderUserId: string; fileIds: string[]; signers: Array<{ name: string; email: string }>; subject: string | undefined },
): EnvelopeRec {
  const now = rt.store.nowMs();
  const env: EnvelopeRec = {
    envelopeId: shortId('env_'),
    spaceId: input.spaceId,
    subject: input.subject,
    fileIds: [...new Set(input.fileIds)],
    senderUserId: input.senderUserId,
    signers: input.signers.map((s) => ({ name: s.name, email: s.email, status: 'pending', token: secureToken(), signedAt: undefined })),
    status: 'sent',
    createdAt: now,
    updatedAt: now,
  };
  rt.store.envelopes.set(env.envelopeId, env);
  mailSigners(rt, env, 'sign-request');
  return env;
}

export function envelopeInSpace(rt: Runtime, spaceId: string, envelopeId: unknown): EnvelopeRec {
  const env = typeof envelopeId === 'string' ? rt.store.envelopes.get(envelopeId) : undefined;
  if (!env || env.spaceId !== spaceId) throw new ServiceError(404, 'ResourceNotFound.Envelope', 'Envelope not found.');
  return env;
}

function requireSent(env: EnvelopeRec, what: string): void {
  if (env.status !== 'sent') throw new ServiceError(409, 'FailedOperation.EnvelopeState', `Cannot ${what} an envelope in state ${env.status}.`);
}

export function voidEnvelope(rt: Runtime, env: EnvelopeRec): void {
  requireSent(env, 'void');
  env.status = 'voided';
  env.updatedAt = rt.store.nowMs();
}

export function remindEnvelope(rt: Runtime, env: EnvelopeRec): void {
  requireSent(env, 'remind');
  mailSigners(rt, env, 'reminder');
  env.updatedAt = rt.store.nowMs();
}

/** A signer signs or declines; the envelope completes when all have signed. */
export function signerAct(rt: Runtime, env: EnvelopeRec, email: string, action: 'sign' | 'decline'): void {
  requireSent(env, action);
  const signer = env.signers.find((s) => s.email.toLowerCase() === email.toLowerCase() && s.status === 'pending');
  if (!signer) throw new ServiceError(409, 'FailedOperation.EnvelopeState', 'Nothing left to sign for this signer.');
  const now = rt.store.nowMs();
  signer.status = action === 'sign' ? 'signed' : 'declined';
  signer.signedAt = now;
  env.updatedAt = now;
  if (action === 'decline') env.status = 'declined';
  else if (env.signers.every((s) => s.status === 'signed')) {
    env.status = 'completed';
    const sender = rt.store.users.get(env.senderUserId);
    if (sender)
      rt.store.sendEmail({
        to: sender.email,
        kind: 'envelope-completed',
        subject: `Completed: ${env.subject ?? 'your envelope'}`,
        link: '',
        text: 'All signers have signed.',
      });
  }
}

/** Envelopes a user sees in a Space: sent by them or addressed to their email. */
export function envelopesOf(rt: Runtime, spaceId: string, user: UserRec): EnvelopeRec[] {
  const email = user.email.toLowerCase();
  return [...rt.store.envelopes.values()]
    .filter((e) => e.spaceId === spaceId && (e.senderUserId === user.userId || e.signers.some((s) => s.email.toLowerCase() === email)))
    .sort((a, b) => b.createdAt - a.createdAt);
}

/** Adds (or finds) a member; a new membership is pending and gets an invitation email. */
export function addMember(rt: Runtime, spaceId: string, email: string, name: string | undefined): { userId: string; status: 'pending' | 'active' } {
  const store = rt.store;
  let user = store.userByEmail(email);
  if (!user) {
    user = { userId: shortId('user_'), email, name: name?.trim() || email.split('@')[0]!, password: undefined };
    store.users.set(user.userId, user);
  }
  const space = store.spaces.get(spaceId)!;
  const existing = space.members.get(user.userId);
  if (existing) return { userId: user.userId, status: existing.status };
  space.members.set(user.userId, { userId: user.userId, role: 'member', status: 'pending' });
  const token = secureToken();
  store.invitations.set(token, { spaceId, userId: user.userId });
  store.sendEmail({
    to: user.email,
    kind: 'invitation',
    subject: `You are invited to ${space.name}`,
    link: `${rt.publicUrl}/invite/${encodeURIComponent(token)}`,
    text: `Open the link to join the Space "${space.name}".`,
  });
  return { userId: user.userId, status: 'pending' };
}
