// svelte-check reads this instead of the repository vite.config.ts (which has no Svelte plugin).
export default {};
