/**
 * Typed client for the service's business endpoints (spec section 4), for server code and custom UIs: the calls the
 * elements make (`ServiceClient`, service-client.ts) and the ones a server makes (members, envelopes, the
 * file-management domain's multipart upload). No Node-only imports. The elements use `ServiceClient` alone, so these
 * calls never reach a browser bundle of the elements.
 */
import { EsignError } from '@esign-elements/shared/errors';
import {
  isRecord,
  type AddMemberData,
  type AddMemberRequest,
  type CreateEnvelopeRequest,
  type EnvelopeData,
  type UploadFilesData,
} from '@esign-elements/shared/service-types';
import { badShape, isOperatorId, ServiceClient, type CallOptions, type ClientOptions, type RequestBody, type ServiceResult } from './service-client.js';
import { isAllowedServiceUrl } from '@esign-elements/shared/url';

export { codeForStatus, parseRetryAfter, ServiceClient, type CallOptions, type ClientOptions, type ServiceResult, type TokenSource } from './service-client.js';

/** (assumption) body of POST /envelopes/void. */
export interface VoidEnvelopeRequest {
  EnvelopeId: string;
  Reason?: string;
}

/** (assumption) body of POST /envelopes/remind. */
export interface RemindEnvelopeRequest {
  EnvelopeId: string;
}

/**
 * One file of a multipart upload: its bytes as a `Blob`, read only while the request body is sent. A `File`
 * carries its own name. On Node, `await fs.openAsBlob(path)` is a Blob backed by the file on disk (nothing is
 * read until the upload streams it); on Bun, `Bun.file(path)`; in a browser, a `File` from an input.
 */
export type UploadPart = File | { content: Blob; name: string };

/** `X-TC-Action` of the file-management domain's upload (spec 4.4). */
export const UPLOAD_FILE_ACTION = 'UploadFile';

export class EsignClient extends ServiceClient {
  readonly fileUrl: string | undefined;

  constructor(options: ClientOptions) {
    super(options);
    if (options.fileUrl !== undefined && (typeof options.fileUrl !== 'string' || !isAllowedServiceUrl(options.fileUrl, { allowLoopbackHttp: true }))) {
      throw new EsignError('invalid_config', 'fileUrl must be an https URL (or http on localhost/127.0.0.1/[::1]).');
    }
    this.fileUrl = options.fileUrl;
  }

  /**
   * The file-management domain's multipart upload (spec 4.4): POST to `fileUrl` with `X-TC-Action: UploadFile`
   * and one `file` part per file. The body is one Blob made of the files' own Blobs: the client never reads a
   * file; the transport reads it while sending (a browser streams a File from disk; on Node, give the client
   * `fetch: nodeStreamingFetch` from `esign-elements/core/node` with `fs.openAsBlob(path)`: Node's built-in
   * fetch keeps a request body's chunks until its connection closes). A retry after a 401 or 429 reads the
   * Blobs again. Not idempotent unless `idempotent: true`.
   */
  async uploadFileParts(files: UploadPart[], options: CallOptions = {}): Promise<ServiceResult<UploadFilesData>> {
    const fileUrl = this.fileUrl;
    if (!fileUrl) throw new EsignError('invalid_config', "uploadFileParts needs the client's fileUrl (the file-management domain).");
    if (!Array.isArray(files) || files.length === 0) throw new EsignError('no_files', 'uploadFileParts needs at least one file.');
    const parts = files.map((file, i) => {
      const part = toPart(file);
      if (!part) throw new EsignError('invalid_argument', `files[${i}] must be a File or {content: Blob, name}.`);
      if (part.name.trim() === '' || part.name.length > 255 || /[\u0000-\u001f]/.test(part.name)) {
        throw new EsignError('invalid_argument', `files[${i}]: the name must be 1 to 255 characters without control characters.`);
      }
      if (part.content.size === 0) throw new EsignError('invalid_argument', `files[${i}] (${part.name}) is empty.`);
      return part;
    });
    const headers = { ...(options.headers ?? {}), 'X-TC-Action': UPLOAD_FILE_ACTION };
    const multipart = multipartBody(parts);
    const result = await this.send<UploadFilesData>(new URL(fileUrl).href, () => multipart, { ...options, headers });
    const list = (result.data as Partial<UploadFilesData> | null)?.Files;
    if (
      !Array.isArray(list) ||
      list.length !== parts.length ||
      !list.every((f) => isRecord(f) && typeof f.FileId === 'string' && typeof f.FileName === 'string')
    ) {
      throw badShape('UploadFile', result);
    }
    return result;
  }

  /** (assumption) POST /members/add. Not idempotent (sends an invitation email). */
  async addMember(request: AddMemberRequest, options: CallOptions = {}): Promise<ServiceResult<AddMemberData>> {
    if (!isRecord(request) || typeof request.Email !== 'string' || request.Email.trim() === '') {
      throw new EsignError('invalid_argument', 'members/add needs an Email.');
    }
    const result = await this.call<AddMemberData>('/members/add', request, options);
    const data = result.data as Partial<AddMemberData> | null;
    if (!isRecord(data) || typeof data.UserId !== 'string') throw badShape('members/add', result);
    return result;
  }

  /**
   * (assumption) POST /envelopes, as the member named by `X-Operator-User-Id` (the call's or the client's
   * `operatorUserId`); refused with `invalid_argument` before any request without one.
   */
  createEnvelope(request: CreateEnvelopeRequest, options: CallOptions = {}): Promise<ServiceResult<EnvelopeData>> {
    return this.#envelopeCall('/envelopes', request, options);
  }

  /** (assumption) POST /envelopes/void. */
  voidEnvelope(request: VoidEnvelopeRequest, options: CallOptions = {}): Promise<ServiceResult<EnvelopeData>> {
    return this.#envelopeCall('/envelopes/void', request, options);
  }

  /** (assumption) POST /envelopes/remind. Not idempotent (sends emails). */
  remindEnvelope(request: RemindEnvelopeRequest, options: CallOptions = {}): Promise<ServiceResult<EnvelopeData>> {
    return this.#envelopeCall('/envelopes/remind', request, options);
  }

  async #envelopeCall(path: string, request: unknown, options: CallOptions): Promise<ServiceResult<EnvelopeData>> {
    const operator = this.operatorFor(options);
    if (!operator) {
      throw new EsignError(
        'invalid_argument',
        `${path.slice(1)} acts for a member of the Space: pass operatorUserId (the member's UserId, sent as X-Operator-User-Id) in the client or call options.`,
      );
    }
    if (!isOperatorId(operator))
      throw new EsignError('invalid_argument', "operatorUserId must be a member's UserId: a non-empty string without control characters.");
    if (!isRecord(request)) throw new EsignError('invalid_argument', `${path.slice(1)} needs a request object.`);
    if (path !== '/envelopes' && (typeof request.EnvelopeId !== 'string' || request.EnvelopeId === '')) {
      throw new EsignError('invalid_argument', `${path.slice(1)} needs an EnvelopeId.`);
    }
    const result = await this.call<EnvelopeData>(path, request, options);
    const data = result.data as Partial<EnvelopeData> | null;
    if (!isRecord(data) || typeof data.EnvelopeId !== 'string') throw badShape(path.slice(1), result);
    return result;
  }
}

export function createClient(options: ClientOptions): EsignClient {
  return new EsignClient(options);
}

/**
 * multipart/form-data (RFC 7578, serialized as the WHATWG FormData algorithm does) as one Blob made of the
 * part headers and the files' own Blobs: nothing is read until the body is sent, and its size (hence
 * Content-Length) is known up front. `new FormData()` would do the same in a browser, but a Blob body also
 * lets a Node transport stream it with a Content-Length (see core/node/fetch.ts).
 */
function multipartBody(parts: Array<{ content: Blob; name: string }>): RequestBody {
  const bytes = new Uint8Array(18);
  globalThis.crypto.getRandomValues(bytes);
  const boundary = `----esign-elements-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  const escape = (value: string): string => value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
  const pieces: BlobPart[] = [];
  for (const part of parts) {
    const type = part.content.type && !/[\r\n]/.test(part.content.type) ? part.content.type : 'application/octet-stream';
    pieces.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${escape(part.name)}"\r\nContent-Type: ${type}\r\n\r\n`,
      part.content,
      '\r\n',
    );
  }
  pieces.push(`--${boundary}--\r\n`);
  return { body: new Blob(pieces), contentType: `multipart/form-data; boundary=${boundary}` };
}

function toPart(file: UploadPart): { content: Blob; name: string } | undefined {
  if (typeof File !== 'undefined' && file instanceof File) return { content: file, name: file.name };
  if (isRecord(file) && file.content instanceof Blob && typeof file.name === 'string') return { content: file.content, name: file.name };
  return undefined;
}
