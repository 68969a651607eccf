import type { ConnectTerms } from '../connect/esign-connect.messages.js';
import type { UploaderTerms } from '../uploader/esign-uploader.messages.js';
import type { ContractListTerms, EmbeddedViewTerms, SigningFrameTerms } from '../embedded-view/embedded-view.messages.js';
import type { TableId } from './messages.js';

/** One language's text for every element; a missing term falls back to English. */
export interface LocaleTables extends Record<TableId, object> {
  connect: Partial<ConnectTerms>;
  uploader: Partial<UploaderTerms>;
  embeddedView: Partial<EmbeddedViewTerms>;
  signingFrame: Partial<SigningFrameTerms>;
  contractList: Partial<ContractListTerms>;
}
