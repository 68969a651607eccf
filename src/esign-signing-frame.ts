/** Registers <esign-signing-frame>. Import the class from `esign-elements/elements` to register it yourself. */
import { EsignSigningFrame } from './elements/embedded-view/esign-signing-frame.js';

if (!customElements.get('esign-signing-frame')) customElements.define('esign-signing-frame', EsignSigningFrame);

export { EsignSigningFrame };
