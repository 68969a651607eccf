/**
 * What a person does in windows a browser test's page cannot script (the consent popup, the service's embedded pages,
 * the native file chooser), once per browser protocol: puppeteer-core for Chromium (CDP) and Firefox (WebDriver
 * BiDi), webdriverio for WebKit (WebDriver classic). The browser test server (test/helpers/services.ts) picks one per
 * test page. What a protocol cannot do throws `Unsupported`, and the test that needs it says so and keeps the check in
 * the engines that can.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame, HTTPRequest, KeyInput, Page } from 'puppeteer-core';
import type { Browser as WebDriverBrowser } from 'webdriverio';
import type { Engine } from './engines.js';

export interface ConsentChoice {
  email?: string;
  password?: string;
  /** The Space to pick (Open Mode). */
  spaceId?: string;
  action?: 'agree' | 'deny';
}

export interface Signer {
  name: string;
  email: string;
}

export interface WatchedRequest {
  url: string;
  outcome: 'pending' | 'answered' | 'failed';
  error?: string;
}

export interface BrowserPerson {
  readonly engine: Engine;
  /** In the emulator's consent window: log in, pick the Space, agree or deny. */
  consent(choice: ConsentChoice, timeoutMs: number): Promise<void>;
  /** Closes the consent window unanswered. */
  closeConsent(timeoutMs: number): Promise<void>;
  /** What a person reads in another window (a popup) whose address starts with `prefix`, once it shows `contains`. */
  windowText(prefix: string, contains: string, timeoutMs: number): Promise<string>;
  /** Comes back to the test page's window after another window (a tab the page opened) took the focus. */
  returnToPage(): Promise<void>;
  /** Waits until the test page is the only window left (the consent popup closed itself). */
  popupsClosed(timeoutMs: number): Promise<void>;
  /** Fills the envelope page in the page's embedded frame and clicks Send; the envelope id shown, or '' when the frame went first. */
  frameSend(input: { subject?: string; signers: Signer[] }, timeoutMs: number): Promise<string>;
  /** The text of the embedded frame whose path contains `path`, once it contains `contains`. */
  frameText(path: string, contains: string, timeoutMs: number): Promise<string>;
  /** Waits for the native file chooser (opened by `press`, a key on the focused element, if given) and picks `files`. */
  chooseFiles(files: Array<{ name: string; size: number }>, press: string | undefined, timeoutMs: number): Promise<{ multiple: boolean; count: number }>;
  /** From now on, the page's `method` requests whose URL contains `contains`, and how each ended. */
  watchRequests(contains: string, method: string): Promise<void>;
  watchedRequests(): WatchedRequest[];
}

/** A check this engine's protocol cannot make. */
export class Unsupported extends Error {
  constructor(engine: Engine, what: string) {
    super(`${engine}: ${what}`);
    this.name = 'Unsupported';
  }
}

async function pickedFiles(files: Array<{ name: string; size: number }>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'esign-chooser-'));
  return Promise.all(
    files.map(async (f) => {
      const path = join(dir, f.name);
      await writeFile(path, randomBytes(f.size));
      return path;
    }),
  );
}

async function poll<T>(find: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// ---- puppeteer-core: Chromium over CDP, Firefox over WebDriver BiDi ----

const watched = new WeakMap<Page, { list: () => WatchedRequest[]; stop: () => void }>();

/**
 * A frame that went away under a step: puppeteer says "detached" or "context was destroyed" over CDP, and Firefox's
 * WebDriver BiDi "no such frame" (seen when the element made way for its sent state while Send's click returned) or
 * "Browsing context already closed" (a frame whose document was replaced while it was read).
 */
const FRAME_GONE = /detached|context was destroyed|no such frame|browsing context already closed/i;

export function puppeteerPerson(engine: 'chromium' | 'firefox', page: Page, serviceOrigin: string): BrowserPerson {
  async function consentPage(timeoutMs: number): Promise<Page> {
    // this page's context only: a window of another test's context is not this person's
    const target = await page
      .browserContext()
      .waitForTarget((t) => t.type() === 'page' && t.url().startsWith(`${serviceOrigin}/consent`), { timeout: timeoutMs })
      .catch((error: unknown) => {
        throw new Error(`no consent window at ${serviceOrigin}/consent within ${timeoutMs} ms`, { cause: error });
      });
    const consent = await target.page();
    if (!consent) throw new Error('consent page target has no page');
    return consent;
  }

  async function clickButton(on: Page, text: string): Promise<void> {
    const handle = await on.waitForSelector(`::-p-xpath(//button[normalize-space(.)="${text}"] | //input[@type="submit" and @value="${text}"])`);
    if (!handle) throw new Error(`no button "${text}" on ${on.url()}`);
    await handle.click();
  }

  function embeddedFrame(path: string, timeoutMs: number): Promise<Frame> {
    const prefix = `${serviceOrigin}/embedded/s/`;
    return poll(
      () => page.frames().find((f) => f.url().startsWith(prefix) && new URL(f.url()).pathname.includes(path)),
      `an embedded frame with ${path}`,
      timeoutMs,
    );
  }

  /**
   * Clicks `selector` in a frame as a person would: scrolled into sight first. puppeteer scrolls only when the element
   * is out of its own frame's viewport, so a button in sight inside the frame but below the fold of the host page (the
   * compose page's Send at 1280 x 800) was clicked outside the window, and nothing happened.
   */
  async function clickInFrame(frame: Frame, selector: string): Promise<void> {
    await frame.$eval(selector, (el) => el.scrollIntoView({ block: 'center', inline: 'center' }));
    await frame.click(selector);
  }

  return {
    engine,
    async consent(choice, timeoutMs) {
      const consent = await consentPage(timeoutMs);
      await consent.waitForSelector('input[name="email"]', { timeout: timeoutMs });
      // the emulator may prefill the hinted email: a person clears the field first
      await consent.$eval('input[name="email"]', (input) => ((input as HTMLInputElement).value = ''));
      await consent.type('input[name="email"]', choice.email ?? 'alice@example.com');
      await consent.type('input[name="password"]', choice.password ?? 'alice-password');
      await Promise.all([consent.waitForNavigation({ timeout: timeoutMs }), clickButton(consent, 'Log in')]);
      if (choice.spaceId) await consent.click(`input[name="space_id"][value="${choice.spaceId}"]`);
      await clickButton(consent, choice.action === 'deny' ? 'Deny' : 'Agree');
    },
    async closeConsent(timeoutMs) {
      await (await consentPage(timeoutMs)).close();
    },
    async windowText(prefix, contains, timeoutMs) {
      const target = await page
        .browserContext()
        .waitForTarget((t) => t.type() === 'page' && t.url().startsWith(prefix), { timeout: timeoutMs })
        .catch((error: unknown) => {
          throw new Error(`no window at ${prefix} within ${timeoutMs} ms`, { cause: error });
        });
      const other = await target.page();
      if (!other) throw new Error(`no page at ${prefix}`);
      await other
        .waitForFunction((text) => document.body?.innerText.includes(text), { timeout: timeoutMs }, contains)
        .catch(async (error: unknown) => {
          const text = await other.evaluate(() => document.body?.innerText ?? '').catch(() => '(unreadable)');
          throw new Error(`the window at ${prefix} did not show "${contains}" within ${timeoutMs} ms; it shows: ${text.slice(0, 500)}`, { cause: error });
        });
      return other.evaluate(() => document.body.innerText);
    },
    async returnToPage() {
      await page.bringToFront();
    },
    async popupsClosed(timeoutMs) {
      const others = async (): Promise<string[]> =>
        (await page.browserContext().pages()).filter((other) => other !== page && other.url() !== 'about:blank').map((other) => other.url());
      await poll(async () => ((await others()).length === 0 ? true : undefined), 'the popup to close itself', timeoutMs).catch(async (error: unknown) => {
        throw new Error(`${String(error)}; still open: ${(await others()).join(', ')}`, { cause: error });
      });
    },
    async frameSend({ subject, signers }, timeoutMs) {
      let frame = await embeddedFrame('/compose', timeoutMs);
      const fill = async (): Promise<void> => {
        if (subject !== undefined) await frame.type('#subject', subject);
        for (const [i, signer] of signers.entries()) {
          if (i > 0) await Promise.all([frame.waitForNavigation({ timeout: timeoutMs }), clickInFrame(frame, '#add-signer')]);
          await frame.type(`#signer-name-${i}`, signer.name);
          await frame.type(`#signer-email-${i}`, signer.email);
        }
      };
      try {
        await fill();
      } catch (error) {
        // once seen in Chromium on a loaded machine (three engines at once): the compose page's document was replaced
        // while the person typed (cause not found). A person types again in the page they now see; a second failure fails
        if (!FRAME_GONE.test(String(error))) throw error;
        console.warn(`frameSend: the compose page changed while typing (${String(error)}); typing again`);
        frame = await embeddedFrame('/compose', timeoutMs);
        // the new document's form, not the one that went away
        await frame.waitForSelector('#signer-name-0', { timeout: timeoutMs });
        await fill();
      }
      await Promise.all([frame.waitForNavigation({ timeout: timeoutMs }), clickInFrame(frame, '#send')]).catch((error: unknown) => {
        // the element may take the frame away as soon as the envelope page reports the envelope sent
        if (!FRAME_GONE.test(String(error))) throw error;
      });
      try {
        // the envelope's page, where the frame stays (a popup, or before the element makes way for its sent state)
        const id = await frame.waitForSelector('#envelope-id', { timeout: Math.min(timeoutMs, 3_000) });
        return (id ? await id.evaluate((el) => el.textContent) : '') ?? '';
      } catch {
        return '';
      }
    },
    async frameText(path, contains, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const frame = await embeddedFrame(path, Math.max(1, deadline - Date.now()));
        try {
          await frame.waitForFunction((text) => document.body?.innerText.includes(text), { timeout: Math.max(1, deadline - Date.now()) }, contains);
          return await frame.evaluate(() => document.body.innerText);
        } catch (error) {
          // the frame's document was replaced while the person read it (seen in Firefox: "Browsing context already
          // closed"): they read the page the frame shows now, within the same time
          if (!FRAME_GONE.test(String(error)) || Date.now() > deadline) throw error;
        }
      }
    },
    async chooseFiles(files, press, timeoutMs) {
      const chosen = page.waitForFileChooser({ timeout: timeoutMs });
      if (press) {
        // the key is pressed once the browser intercepts choosers (pressing while that request was on its way lost the
        // chooser): on CDP the interception request is sent again on the page's own session and answered; on BiDi a
        // round trip on the same connection after the subscription does the same
        if (engine === 'chromium') {
          const session = (page as unknown as { _client(): { send(method: string, params: object): Promise<unknown> } })._client();
          await session.send('Page.setInterceptFileChooserDialog', { enabled: true });
        } else {
          await new Promise((resolve) => setTimeout(resolve, 50));
          await page.evaluate('0');
        }
        await page.keyboard.press(press as KeyInput);
      }
      const chooser = await chosen;
      const paths = await pickedFiles(files);
      await chooser.accept(paths);
      return { multiple: chooser.isMultiple(), count: paths.length };
    },
    async watchRequests(contains, method) {
      watched.get(page)?.stop();
      const seen = new Map<HTTPRequest, WatchedRequest>();
      const onRequest = (r: HTTPRequest): void =>
        void (r.method() === method && r.url().includes(contains) && seen.set(r, { url: r.url(), outcome: 'pending' }));
      const onFinished = (r: HTTPRequest): void => void (seen.has(r) && (seen.get(r)!.outcome = 'answered'));
      const onFailed = (r: HTTPRequest): void => void (seen.has(r) && Object.assign(seen.get(r)!, { outcome: 'failed', error: r.failure()?.errorText }));
      page.on('request', onRequest);
      page.on('requestfinished', onFinished);
      page.on('requestfailed', onFailed);
      watched.set(page, {
        list: () => [...seen.values()],
        stop: () => {
          page.off('request', onRequest);
          page.off('requestfinished', onFinished);
          page.off('requestfailed', onFailed);
        },
      });
    },
    watchedRequests: () => watched.get(page)?.list() ?? [],
  };
}

// ---- webdriverio: WebKit over WebDriver classic ----

/**
 * WebDriver classic has one current window and frame per session, which the test runner also uses between test
 * files: every action here switches to its window or frame and always switches back to the test page's top.
 */
/** The W3C WebDriver key of an element reference. */
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/**
 * WebKitWebDriver cannot act inside a frame that sits in a shadow root, as every element's frame does: Element Send
 * Keys answers "Element is not focusable" and Element Click hits the wrong place (coordinates taken without the shadow
 * host's frame offset), though a person can focus and click there. Inside those frames the person's typing and clicks
 * are scripted (`scripted`), which the page sees as the same events; windows (the consent page) use the real commands.
 */
export function webdriverPerson(driver: WebDriverBrowser, serviceOrigin: string): BrowserPerson {
  async function inWindow<T>(matches: (url: string) => boolean, what: string, timeoutMs: number, act: () => Promise<T>): Promise<T> {
    const home = await driver.getWindowHandle();
    /** The other windows' addresses at the last look: what a failure says it saw (a window left by an earlier test). */
    let seen: string[] = [];
    try {
      await poll(
        async () => {
          seen = [];
          for (const handle of await driver.getWindowHandles()) {
            if (handle === home) continue;
            await driver.switchToWindow(handle);
            const url = await driver.getUrl();
            if (matches(url)) return true;
            seen.push(url);
          }
          await driver.switchToWindow(home);
          return undefined;
        },
        what,
        timeoutMs,
      ).catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}; other windows: ${seen.length ? seen.join(', ') : 'none'}`, {
          cause: error,
        });
      });
      return await act();
    } finally {
      await driver.switchToWindow(home).catch(() => undefined);
    }
  }

  /** Runs `act` inside the page's embedded frame (in an element's shadow root) whose path contains `path`. */
  async function inFrame<T>(path: string, timeoutMs: number, act: () => Promise<T>): Promise<T> {
    const prefix = `${serviceOrigin}/embedded/s/`;
    await driver.switchFrame(null);
    try {
      await poll(
        async () => {
          const frames = (await driver.execute(`
          const found = [];
          const walk = (root) => { for (const el of root.querySelectorAll('*')) { if (el.tagName === 'IFRAME') found.push(el); if (el.shadowRoot) walk(el.shadowRoot); } };
          walk(document);
          return found;`)) as unknown[];
          for (const frame of frames) {
            await driver.switchFrame(frame as never);
            const url = String(await driver.execute('return location.href'));
            if (url.startsWith(prefix) && new URL(url).pathname.includes(path)) return true;
            await driver.switchToParentFrame();
          }
          return undefined;
        },
        `an embedded frame with ${path}`,
        timeoutMs,
      );
      return await act();
    } finally {
      await driver.switchToParentFrame().catch(() => undefined);
    }
  }

  /**
   * The element `selector` finds, once it exists. Actions go through the WebDriver commands themselves (Element Send
   * Keys, Element Click), which check interactability in the browser: webdriverio's own wrappers judge it with a script
   * that gives up inside WebKit's cross-origin frames.
   */
  async function element(selector: string, timeoutMs: number): Promise<string> {
    const using = selector.startsWith('//') ? 'xpath' : 'css selector';
    return poll(
      async () => {
        const found = (await driver.findElements(using, selector)) as Array<Record<string, string>>;
        const ref = found[0];
        return ref ? Object.values(ref)[0] : undefined;
      },
      selector,
      timeoutMs,
    );
  }

  /**
   * Types `text` into the field, through WebDriver's Element Send Keys; `scripted` (inside an element's frame) gives
   * the field the text as typing leaves it (value, then `input` and `change` events) instead.
   */
  async function type(selector: string, text: string, timeoutMs: number, scripted = false): Promise<void> {
    const id = await element(selector, timeoutMs);
    if (!scripted) {
      await driver.elementClear(id);
      await driver.elementSendKeys(id, text);
      return;
    }
    await driver.execute(
      `const field = arguments[0]; field.focus(); field.value = arguments[1];
       field.dispatchEvent(new Event('input', { bubbles: true })); field.dispatchEvent(new Event('change', { bubbles: true }));`,
      { [ELEMENT]: id },
      text,
    );
  }

  /** Clicks the element, through WebDriver's Element Click; `scripted` (inside an element's frame): its own click(). */
  async function click(selector: string, timeoutMs: number, scripted = false): Promise<void> {
    const id = await element(selector, timeoutMs);
    if (scripted) await driver.execute('arguments[0].click()', { [ELEMENT]: id });
    else await driver.elementClick(id);
  }

  const button = (text: string): string => `//button[normalize-space(.)="${text}"] | //input[@type="submit" and @value="${text}"]`;
  const isConsent = (url: string): boolean => url.startsWith(`${serviceOrigin}/consent`);
  return {
    engine: 'webkit',
    consent(choice, timeoutMs) {
      return inWindow(isConsent, 'the consent window', timeoutMs, async () => {
        await type('input[name="email"]', choice.email ?? 'alice@example.com', timeoutMs);
        await type('input[name="password"]', choice.password ?? 'alice-password', timeoutMs);
        await click(button('Log in'), timeoutMs);
        const answer = button(choice.action === 'deny' ? 'Deny' : 'Agree');
        await element(answer, timeoutMs);
        if (choice.spaceId) await click(`input[name="space_id"][value="${choice.spaceId}"]`, timeoutMs);
        await click(answer, timeoutMs);
      });
    },
    closeConsent(timeoutMs) {
      return inWindow(isConsent, 'the consent window', timeoutMs, () => driver.closeWindow().then(() => undefined));
    },
    windowText(prefix, contains, timeoutMs) {
      const read = async (): Promise<string | undefined> => {
        const text = (await driver.execute('return document.body ? document.body.innerText : ""')) as string;
        return text.includes(contains) ? text : undefined;
      };
      return inWindow(
        (url) => url.startsWith(prefix),
        `a window at ${prefix}`,
        timeoutMs,
        () => poll(read, `"${contains}" in the window at ${prefix}`, timeoutMs),
      );
    },
    async returnToPage() {
      // WebDriver classic acts in the window it is switched to, which stays the test page's: nothing to do
    },
    async popupsClosed(timeoutMs) {
      let open: string[] = [];
      await poll(async () => ((open = await driver.getWindowHandles()).length === 1 ? true : undefined), 'the popup to close itself', timeoutMs).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}; ${open.length} windows still open`, { cause: error });
        },
      );
    },
    frameSend({ subject, signers }, timeoutMs) {
      return inFrame('/compose', timeoutMs, async () => {
        if (subject !== undefined) await type('#subject', subject, timeoutMs, true);
        for (const [i, signer] of signers.entries()) {
          if (i > 0) await click('#add-signer', timeoutMs, true);
          await type(`#signer-name-${i}`, signer.name, timeoutMs, true);
          await type(`#signer-email-${i}`, signer.email, timeoutMs, true);
        }
        await click('#send', timeoutMs, true);
        // the element may take the frame away as soon as the envelope page reports the envelope sent
        try {
          return await driver.getElementText(await element('#envelope-id', Math.min(timeoutMs, 3_000)));
        } catch {
          return '';
        }
      });
    },
    frameText(path, contains, timeoutMs) {
      return inFrame(path, timeoutMs, () =>
        poll(
          async () => {
            const text = String(await driver.execute('return document.body ? document.body.innerText : ""'));
            return text.includes(contains) ? text : undefined;
          },
          `"${contains}" in the embedded frame`,
          timeoutMs,
        ),
      );
    },
    async chooseFiles() {
      throw new Unsupported('webkit', 'WebDriver classic cannot see or answer a native file chooser');
    },
    async watchRequests() {
      throw new Unsupported('webkit', 'WebDriver classic cannot watch the page’s requests');
    },
    watchedRequests: () => [],
  };
}
