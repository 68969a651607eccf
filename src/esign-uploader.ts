/** Registers <esign-uploader>. Import the class from `esign-elements/elements` to register it yourself. */
import { EsignUploader } from './elements/uploader/esign-uploader.js';

if (!customElements.get('esign-uploader')) customElements.define('esign-uploader', EsignUploader);

export { EsignUploader };
