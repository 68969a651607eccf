import type { Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AddMemberData, EmbeddedViewData, UploadFilesData } from '@esign-elements/shared';
import {
  addMember,
  createEnvelope,
  EMAIL_RE,
  envelopeData,
  envelopeInSpace,
  fileNameProblem,
  filesInSpace,
  remindEnvelope,
  storeFiles,
  voidEnvelope,
} from './domain.js';
import { type Ctx, type EmuEnv, fail, mediaType, ok, rfc3339, ServiceError } from './http.js';
import { authenticate, type BearerAuth, rateLimit } from './bearer.js';
import type { Runtime } from './runtime.js';
import { secureToken } from './state.js';

const API = '/openapi/v1';
const JSON_BODY_CAP = 1024 * 1024;

export interface BusinessCall {
  auth: BearerAuth;
  spaceId: string;
  /** X-Operator-User-Id when sent, else the authorizing user (the page's "current user"). */
  actingUserId: string;
  operatorId: string | undefined;
}

/** Bearer + rate limit + optional/required X-Operator-User-Id, shared by business routes and the file domain. */
export function beginCall(rt: Runtime, c: Ctx, operator: 'optional' | 'required'): BusinessCall {
  rt.store.sweep();
  const auth = authenticate(rt, c);
  rateLimit(rt, auth.token);
  const spaceId = auth.grant.spaceId;
  const header = c.req.header('x-operator-user-id')?.trim();
  if (!header) {
    if (operator === 'required')
      throw new ServiceError(
        403,
        'OperationDenied.OperatorRequired',
        'This operation needs X-Operator-User-Id of a member of the Space; the app system user may not do it.',
      );
    return { auth, spaceId, actingUserId: auth.grant.userId, operatorId: undefined };
  }
  if (!rt.store.isActiveMember(spaceId, header))
    throw new ServiceError(403, 'OperationDenied.NotMember', 'X-Operator-User-Id is not an active member of this Space.');
  return { auth, spaceId, actingUserId: header, operatorId: header };
}

export async function readJsonObject(c: Ctx): Promise<Record<string, unknown>> {
  if (mediaType(c) !== 'application/json') throw new ServiceError(415, 'UnsupportedMediaType', 'Content-Type must be application/json.');
  let value: unknown;
  try {
    value = JSON.parse(await c.req.text());
  } catch {
    throw new ServiceError(400, 'InvalidParameter', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ServiceError(400, 'InvalidParameter', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}

/** Length of the bytes a strict Base64 string decodes to, or -1 when it is not strict Base64 (RFC 4648 section 4, padded, no whitespace). */
export function strictBase64Length(s: string): number {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return -1;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return (s.length / 4) * 3 - pad;
}

export function fileCountCheck(rt: Runtime, count: number): void {
  if (count === 0) throw new ServiceError(400, 'InvalidParameter', 'Files must hold at least one file.');
  if (count > rt.limits.maxFilesPerRequest)
    throw new ServiceError(413, 'LimitExceeded.FileCount', `At most ${rt.limits.maxFilesPerRequest} files per request.`);
}

export function fileSizeCheck(rt: Runtime, size: number, name: string): void {
  if (size > rt.limits.maxFileBytes) throw new ServiceError(413, 'LimitExceeded.FileSize', `${name} is larger than ${rt.limits.maxFileBytes} bytes.`);
  if (size === 0) throw new ServiceError(400, 'InvalidParameter', `${name} is empty.`);
}

export function uploadBodyCap(rt: Runtime): number {
  return Math.ceil((rt.limits.maxFilesPerRequest * rt.limits.maxFileBytes * 4) / 3) + 64 * 1024;
}

function capBody(max: number, code: string): MiddlewareHandler<EmuEnv> {
  return bodyLimit({ maxSize: max, onError: (c) => fail(c as Ctx, 413, code, 'The request body is too large.') }) as MiddlewareHandler<EmuEnv>;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function mountBusiness(app: Hono<EmuEnv>, rt: Runtime): void {
  const store = rt.store;
  const small = capBody(JSON_BODY_CAP, 'LimitExceeded.RequestSize');

  app.post(`${API}/files/upload`, capBody(uploadBodyCap(rt), 'LimitExceeded.FileSize'), async (c) => {
    const call = beginCall(rt, c, 'optional');
    const body = await readJsonObject(c);
    const files = body.Files;
    if (!Array.isArray(files)) throw new ServiceError(400, 'InvalidParameter', 'Files must be an array of {FileName, FileBody}.');
    fileCountCheck(rt, files.length);
    const decoded = files.map((f: unknown, i) => {
      if (typeof f !== 'object' || f === null || Array.isArray(f)) throw new ServiceError(400, 'InvalidParameter', `Files[${i}] must be an object.`);
      const { FileName, FileBody } = f as Record<string, unknown>;
      const problem = fileNameProblem(FileName);
      if (problem) throw new ServiceError(400, 'InvalidParameter', `Files[${i}]: ${problem}`);
      if (typeof FileBody !== 'string') throw new ServiceError(400, 'InvalidParameter', `Files[${i}].FileBody must be a Base64 string.`);
      const size = strictBase64Length(FileBody);
      if (size < 0) throw new ServiceError(400, 'InvalidParameter', `Files[${i}].FileBody is not valid Base64.`);
      fileSizeCheck(rt, size, `Files[${i}]`);
      return { name: FileName as string, body: FileBody };
    });
    const stored = storeFiles(
      rt,
      call.spaceId,
      call.actingUserId,
      decoded.map((d) => ({ name: d.name, bytes: new Uint8Array(Buffer.from(d.body, 'base64')) })),
    );
    const data: UploadFilesData = { Files: stored.map((f) => ({ FileId: f.fileId, FileName: f.name })) };
    return ok(c, data);
  });

  app.post(`${API}/embedded/views`, small, async (c) => {
    const call = beginCall(rt, c, 'optional');
    const body = await readJsonObject(c);
    const type = body.OperateType;
    let fileIds: string[] = [];
    if (type === 'signature_status') {
      if (body.OperateParam !== undefined && body.OperateParam !== null)
        throw new ServiceError(400, 'InvalidParameter', 'signature_status takes no OperateParam.');
    } else if (type === 'request_signatures') {
      const param = body.OperateParam;
      const ids = typeof param === 'object' && param !== null ? (param as Record<string, unknown>).FileIds : undefined;
      if (!Array.isArray(ids) || ids.length === 0 || !ids.every((x) => typeof x === 'string' && x.length > 0))
        throw new ServiceError(400, 'InvalidParameter.FileIds', 'OperateParam.FileIds must be a non-empty array of FileId strings.');
      fileIds = filesInSpace(rt, call.spaceId, ids as string[]).map((f) => f.fileId);
    } else {
      throw new ServiceError(400, 'InvalidParameter', 'OperateType must be request_signatures or signature_status.');
    }
    const token = secureToken();
    // whole seconds so ExpiresAt (second precision) is the exact instant
    const expiresAt = Math.floor((store.nowMs() + rt.limits.embeddedUrlTtlSeconds * 1000) / 1000) * 1000;
    store.embeddedUrls.set(token, { kind: type, spaceId: call.spaceId, userId: call.actingUserId, fileIds, expiresAt, used: false });
    const data: EmbeddedViewData = { Url: `${rt.publicUrl}/embedded/view?embedded_token=${encodeURIComponent(token)}`, ExpiresAt: rfc3339(expiresAt) };
    return ok(c, data);
  });

  app.post(`${API}/members/add`, small, async (c) => {
    const call = beginCall(rt, c, 'optional');
    const body = await readJsonObject(c);
    const email = str(body.Email)?.trim();
    if (!email || !EMAIL_RE.test(email) || email.length > 254) throw new ServiceError(400, 'InvalidParameter', 'Email must be an email address.');
    if (body.Name !== undefined && (typeof body.Name !== 'string' || body.Name.length > 200))
      throw new ServiceError(400, 'InvalidParameter', 'Name must be a string.');
    const added = addMember(rt, call.spaceId, email, str(body.Name));
    const data: AddMemberData = { UserId: added.userId, Status: added.status };
    return ok(c, data);
  });

  app.post(`${API}/envelopes`, small, async (c) => {
    const call = beginCall(rt, c, 'required');
    const body = await readJsonObject(c);
    const ids = body.FileIds;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((x) => typeof x === 'string' && x.length > 0))
      throw new ServiceError(400, 'InvalidParameter.FileIds', 'FileIds must be a non-empty array of FileId strings.');
    const signers = body.Signers;
    if (!Array.isArray(signers) || signers.length === 0 || signers.length > 50)
      throw new ServiceError(400, 'InvalidParameter', 'Signers must be an array of 1 to 50 {Name, Email}.');
    const parsed = signers.map((s: unknown, i) => {
      const o = (typeof s === 'object' && s !== null ? s : {}) as Record<string, unknown>;
      const name = str(o.Name)?.trim();
      const email = str(o.Email)?.trim();
      if (!name || !email || !EMAIL_RE.test(email)) throw new ServiceError(400, 'InvalidParameter', `Signers[${i}] needs a Name and a valid Email.`);
      return { name, email };
    });
    if (body.Subject !== undefined && typeof body.Subject !== 'string') throw new ServiceError(400, 'InvalidParameter', 'Subject must be a string.');
    const files = filesInSpace(rt, call.spaceId, ids as string[]);
    const env = createEnvelope(rt, {
      spaceId: call.spaceId,
      senderUserId: call.actingUserId,
      fileIds: files.map((f) => f.fileId),
      signers: parsed,
      subject: str(body.Subject)?.trim() || undefined,
    });
    return ok(c, envelopeData(env));
  });

  app.post(`${API}/envelopes/void`, small, async (c) => {
    const call = beginCall(rt, c, 'required');
    const body = await readJsonObject(c);
    const env = envelopeInSpace(rt, call.spaceId, body.EnvelopeId);
    voidEnvelope(rt, env);
    return ok(c, envelopeData(env));
  });

  app.post(`${API}/envelopes/remind`, small, async (c) => {
    const call = beginCall(rt, c, 'required');
    const body = await readJsonObject(c);
    const env = envelopeInSpace(rt, call.spaceId, body.EnvelopeId);
    remindEnvelope(rt, env);
    return ok(c, envelopeData(env));
  });
}
