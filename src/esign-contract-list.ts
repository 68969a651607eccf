/** Registers <esign-contract-list>. Import the class from `esign-elements/elements` to register it yourself. */
import { EsignContractList } from './elements/embedded-view/esign-contract-list.js';

if (!customElements.get('esign-contract-list')) customElements.define('esign-contract-list', EsignContractList);

export { EsignContractList };
