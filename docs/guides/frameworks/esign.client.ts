// plugins/esign.client.ts: the tags are defined in the browser only (.client), after the server's HTML is in place
import 'esign-elements';

export default defineNuxtPlugin(() => {});
