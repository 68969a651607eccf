// src/hooks.client.ts (SvelteKit): runs in the browser only; the tags upgrade in the server's HTML
import 'esign-elements';
