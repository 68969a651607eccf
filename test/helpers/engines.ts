/**
 * The three browser engines every browser and end-to-end test runs in, all from Debian's packages (nothing here
 * downloads a browser):
 * - Chromium (`chromium`), driven over CDP by puppeteer-core;
 * - Firefox ESR (`firefox-esr`), driven over WebDriver BiDi by the same puppeteer-core;
 * - WebKitGTK's MiniBrowser (`webkit2gtk-driver`), driven over WebDriver classic by webdriverio through
 *   WebKitWebDriver, in an Xvfb display this module starts (WebKitGTK has no headless mode of its own).
 * `ESIGN_ENGINES=chromium,firefox` narrows a run (local work only: `npm test` runs all three).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.js';
import { freePort } from '@esign-elements/test-support/ports';

export type Engine = 'chromium' | 'firefox' | 'webkit';
export const ENGINES: readonly Engine[] = ['chromium', 'firefox', 'webkit'];

export const FIREFOX_PATH = process.env['FIREFOX_PATH'] ?? '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER_PATH = process.env['WEBKIT_DRIVER_PATH'] ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER_PATH = process.env['MINIBROWSER_PATH'] ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** The engines this run tests: all three unless ESIGN_ENGINES names fewer; an unknown name is an error, not a skip. */
export function selectedEngines(): Engine[] {
  const asked = process.env['ESIGN_ENGINES']
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!asked?.length) return [...ENGINES];
  for (const name of asked) if (!ENGINES.includes(name as Engine)) throw new Error(`ESIGN_ENGINES: unknown engine "${name}" (known: ${ENGINES.join(', ')})`);
  return ENGINES.filter((engine) => asked.includes(engine));
}

/** Fails at once, naming the Debian package, when an engine's binary is missing: a missing engine is never skipped. */
export function assertInstalled(engine: Engine): void {
  const needs: Record<Engine, Array<[string, string]>> = {
    chromium: [[CHROMIUM_PATH, 'chromium']],
    firefox: [[FIREFOX_PATH, 'firefox-esr']],
    webkit: [
      [WEBKIT_DRIVER_PATH, 'webkit2gtk-driver'],
      [MINIBROWSER_PATH, 'webkit2gtk-driver'],
    ],
  };
  for (const [path, pkg] of needs[engine]) {
    if (!existsSync(path)) throw new Error(`${engine}: ${path} is missing (apt-get install ${pkg}${engine === 'webkit' ? ' xvfb' : ''})`);
  }
}

/**
 * Firefox's prefs for tests: the real popup blocker stays on (puppeteer turns it off by default), so a test proves a
 * window opens from a click; no first-run pages, updates or telemetry on a closed network.
 */
export const FIREFOX_PREFS: Record<string, unknown> = {
  'dom.disable_open_during_load': true,
  'browser.shell.checkDefaultBrowser': false,
  'app.update.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  // localhost resolves to 127.0.0.1, as in the other engines (the servers listen on IPv4 loopback only)
  'network.dns.disableIPv6': true,
};

/** puppeteer-core's launch options for Chromium or Firefox. */
export function puppeteerLaunchOptions(engine: 'chromium' | 'firefox', extraArgs: string[] = []) {
  if (engine === 'firefox') {
    return { browser: 'firefox' as const, executablePath: FIREFOX_PATH, headless: true, extraPrefsFirefox: FIREFOX_PREFS, args: extraArgs };
  }
  // keep the real popup blocker: tests must prove the popup opens from a user gesture
  return {
    browser: 'chrome' as const,
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    ignoreDefaultArgs: ['--disable-popup-blocking'],
  };
}

export interface WebKitDriver {
  /** webdriverio's `remote()` options for a MiniBrowser session on this driver. */
  options: {
    hostname: string;
    port: number;
    logLevel: 'silent';
    connectionRetryTimeout: number;
    capabilities: Record<string, unknown>;
  };
  close(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A free X display number (no lock file), from :90 up. */
function freeDisplay(): number {
  for (let display = 90; display < 190; display++) if (!existsSync(`/tmp/.X${display}-lock`)) return display;
  throw new Error('no free X display between :90 and :189');
}

/**
 * Starts Xvfb (unless DISPLAY is set) and WebKitWebDriver on a free loopback port; `close()` stops both. Sessions
 * are made by webdriverio with `options`; MiniBrowser's `--automation` is what WebKitWebDriver drives.
 */
export async function startWebKitDriver(): Promise<WebKitDriver> {
  assertInstalled('webkit');
  const children: ChildProcess[] = [];
  let display = process.env['DISPLAY'];
  if (!display) {
    const number = freeDisplay();
    const xvfb = spawn('Xvfb', [`:${number}`, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    children.push(xvfb);
    display = `:${number}`;
    await waitFor(() => existsSync(`/tmp/.X11-unix/X${number}`) || xvfb.exitCode !== null, 'Xvfb');
    if (xvfb.exitCode !== null) throw new Error(`Xvfb ${display} exited with ${xvfb.exitCode} (apt-get install xvfb)`);
  }
  const port = await freePort();
  const driver = spawn(WEBKIT_DRIVER_PATH, [`--port=${port}`], { env: { ...process.env, DISPLAY: display }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(driver);
  let stderr = '';
  driver.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const close = async (): Promise<void> => {
    for (const child of children.reverse()) await stopChild(child);
  };
  try {
    await waitFor(async () => {
      if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited with ${driver.exitCode}: ${stderr}`);
      return fetch(`http://127.0.0.1:${port}/status`).then(
        (res) => res.ok,
        () => false,
      );
    }, 'WebKitWebDriver');
  } catch (error) {
    await close();
    throw error;
  }
  return {
    options: {
      hostname: '127.0.0.1',
      port,
      logLevel: 'silent',
      connectionRetryTimeout: 60_000,
      capabilities: {
        browserName: 'MiniBrowser',
        'wdio:enforceWebDriverClassic': true,
        'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation'] },
      },
    },
    close,
  };
}
