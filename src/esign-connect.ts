/** Registers <esign-connect>. Import the class from `esign-elements/elements` to register it yourself. */
import { EsignConnect } from './elements/connect/esign-connect.js';

if (!customElements.get('esign-connect')) customElements.define('esign-connect', EsignConnect);

export { EsignConnect };
