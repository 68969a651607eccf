/** The emulator suites' helpers: `start` (an emulator on free ports) and its HTTP API from test-support. */
import { createEmulator, type EmulatorOptions, type RunningEmulator } from '../src/index.js';

export * from '@esign-elements/test-support/emulator-api';

export function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return createEmulator({ port: 0, filePort: 0, ...options });
}
