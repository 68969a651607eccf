import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { UploadFilesData } from '@esign-elements/shared';
import { beginCall, fileCountCheck, fileSizeCheck, uploadBodyCap } from './app.js';
import { fileNameProblem, storeFiles } from './domain.js';
import { type Ctx, type EmuEnv, fail, mediaType, ok, ServiceError } from './http.js';
import type { Runtime } from './runtime.js';

/** (assumption) the X-TC-Action values the file-management domain knows. */
const ACTIONS = ['UploadFile'] as const;

/** The file-management domain: POST / told apart by X-TC-Action, multipart/form-data. */
export function mountFileDomain(app: Hono<EmuEnv>, rt: Runtime): void {
  const cap = bodyLimit({
    maxSize: uploadBodyCap(rt),
    onError: (c) => fail(c as Ctx, 413, 'LimitExceeded.FileSize', 'The request body is too large.'),
  });

  app.post('/', cap, async (c) => {
    const action = c.req.header('x-tc-action')?.trim();
    if (!action) throw new ServiceError(400, 'InvalidParameter.Action', 'The X-TC-Action header is required.');
    if (!(ACTIONS as readonly string[]).includes(action))
      throw new ServiceError(400, 'InvalidParameter.Action', `Unknown X-TC-Action ${action}; supported: ${ACTIONS.join(', ')}.`);
    const call = beginCall(rt, c, 'optional');
    if (mediaType(c) !== 'multipart/form-data') throw new ServiceError(415, 'UnsupportedMediaType', 'Content-Type must be multipart/form-data.');
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      throw new ServiceError(400, 'InvalidParameter', 'The multipart body could not be parsed.');
    }
    const raw = form.file;
    const parts = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (parts.some((p) => !(p instanceof File))) throw new ServiceError(400, 'InvalidParameter', 'Every "file" field must be a file part.');
    const files = parts as File[];
    fileCountCheck(rt, files.length);
    files.forEach((f, i) => {
      const problem = fileNameProblem(f.name);
      if (problem) throw new ServiceError(400, 'InvalidParameter', `file[${i}]: ${problem}`);
      fileSizeCheck(rt, f.size, `file[${i}]`);
    });
    const bytes = await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
    const stored = storeFiles(
      rt,
      call.spaceId,
      call.actingUserId,
      files.map((f, i) => ({ name: f.name, bytes: bytes[i]! })),
    );
    const data: UploadFilesData = { Files: stored.map((f) => ({ FileId: f.fileId, FileName: f.name })) };
    return ok(c, data);
  });
}
