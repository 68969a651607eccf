// nuxt.config.ts
export default defineNuxtConfig({
  // Vue's compiler is told here in Nuxt (the Vite plugin's option does not apply): without it Vue warns and hydration mismatches
  vue: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('esign-') } },
  // pre-bundled once in dev, not discovered late (a reload of the page in the middle of the first sign-in)
  vite: { optimizeDeps: { include: ['esign-elements'] } },
  // each element's space before its code runs: no jump when the server's empty tags upgrade
  css: ['esign-elements/elements.css'],
  // what the page needs, public (NUXT_PUBLIC_ESIGN_CLIENT_ID, NUXT_PUBLIC_ESIGN_BASE_URL at run time); the secrets
  // stay ESIGN_* in the server's environment, read by the proxy route
  runtimeConfig: { public: { esignClientId: '', esignBaseUrl: '' } },
});
