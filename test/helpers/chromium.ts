/** How every test and benchmark starts Debian's Chromium: no browser download, no calls home from a closed network. */
export const CHROMIUM_PATH = process.env['CHROME_PATH'] ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Options for playwright-core's `chromium.launch`. */
export function chromiumLaunchOptions(extraArgs: string[] = []): { executablePath: string; args: string[] } {
  return { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs] };
}
