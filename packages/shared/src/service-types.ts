/**
 * Wire types of the hosted service, in the service's own names (see shared/spec/open-api.md).
 * Shared by the API client, the elements and the emulator.
 */

export const API_PREFIX = '/openapi/v1';

/** A JSON object (not null, not an array): what a response's fields are read from. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Token endpoint response (spec section 2). `space_id` is an emulator addition (assumption). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
  /** (assumption) The Space the token applies to; optional, the real service may not send it. */
  space_id?: string;
}

/** RFC 6749 error body (assumption: the service uses it). */
export interface OAuthErrorBody {
  error: string;
  error_description?: string;
}

/** Business success envelope. */
export interface ServiceEnvelope<T> {
  Response: {
    RequestId: string;
    Data: T;
  };
}

/** Business error envelope (assumption). */
export interface ServiceErrorEnvelope {
  Response: {
    RequestId: string;
    Error: { Code: string; Message: string };
  };
}

export interface UploadFileInput {
  FileName: string;
  /** Base64 of the file content. */
  FileBody: string;
}

export interface UploadedFile {
  FileId: string;
  FileName: string;
}

export interface UploadFilesData {
  Files: UploadedFile[];
}

export type OperateType = 'request_signatures' | 'signature_status';

export interface EmbeddedViewRequest {
  OperateType: OperateType;
  OperateParam?: { FileIds: string[] };
}

export interface EmbeddedViewData {
  Url: string;
  /** RFC3339. */
  ExpiresAt: string;
}

/** (assumption) members/add request. */
export interface AddMemberRequest {
  Email: string;
  Name?: string;
}

/** (assumption) members/add response data. */
export interface AddMemberData {
  UserId: string;
  Status: 'pending' | 'active';
}

/** (assumption) envelope states. */
export type EnvelopeStatus = 'draft' | 'sent' | 'completed' | 'voided' | 'declined';

export interface EnvelopeSigner {
  Name: string;
  Email: string;
}

/** (assumption) POST /envelopes request. */
export interface CreateEnvelopeRequest {
  FileIds: string[];
  Signers: EnvelopeSigner[];
  Subject?: string;
}

/** (assumption) envelope record. */
export interface EnvelopeData {
  EnvelopeId: string;
  Status: EnvelopeStatus;
  Subject?: string;
  FileIds: string[];
  Signers: Array<EnvelopeSigner & { Status: 'pending' | 'signed' | 'declined' }>;
  CreatedAt: string;
  UpdatedAt: string;
}

/** Messages the embedded pages post to their parent (assumption; see design.md). */
export interface EmbeddedPageMessage {
  source: 'esign';
  type: string;
  [key: string]: unknown;
}
