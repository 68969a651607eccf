import type { Store } from './state.js';
import type { EmulatorLimits, OriginList } from './types.js';

/** What every route module needs: the store, the settings and the public origin (known after listen). */
export interface Runtime {
  store: Store;
  limits: EmulatorLimits;
  /** Origin (and optional base path) used in returned Urls and redirects, no trailing slash. */
  publicUrl: string;
  fileUrl: string;
  corsOrigins: OriginList | undefined;
  frameAncestors: OriginList | undefined;
  /** Any loopback http redirect_uri is accepted (EmulatorOptions.devRedirects). */
  devRedirects: boolean;
  log: (line: string) => void;
}
