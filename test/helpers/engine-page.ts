/**
 * One browser window in any of the three engines, for end-to-end tests that run the same steps in each: open a page,
 * click a button as a person does (a real click, so a popup opens from it), read what the page shows (shadow roots
 * included), run a script, reload; `person` acts in the consent popup and the embedded frames (browser-person.ts).
 *
 * A test file opens its engines once (`openEngines` in `before`, `close` in `after`): one browser per engine, launched
 * at that engine's first page, and each page in a fresh context of its own (cookies, storage, windows), so tests share
 * no state but the launch. Chromium and Firefox: a puppeteer browser context (a BiDi user context in Firefox); WebKit,
 * whose WebDriver classic has no contexts: one WebKitWebDriver per file and a new MiniBrowser session per page.
 */
import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core';
import { remote, type Browser as WebDriverBrowser } from 'webdriverio';
import { type BrowserPerson, puppeteerPerson, webdriverPerson } from './browser-person.js';
import { assertInstalled, type Engine, puppeteerLaunchOptions, startWebKitDriver } from './engines.js';

export interface EnginePage {
  engine: Engine;
  person: BrowserPerson;
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  /** Runs `script` (a function body; `arguments` holds `args`) in the page and returns its JSON-able result. */
  run<T>(script: string, ...args: unknown[]): Promise<T>;
  /** Clicks, as a person does, the first button (in the page or any shadow root) whose text is `text`. */
  clickButton(text: string, timeoutMs?: number): Promise<void>;
  /** Waits until the page's text (shadow roots included) contains `text`. */
  waitForText(text: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A test file's browsers: one per engine, launched at its first page; `close()` ends them all. */
export interface EngineBrowsers {
  /** A page of `engine` in a fresh context of its own (no cookie, storage or window of an earlier page). */
  newPage(engine: Engine): Promise<EnginePage>;
  close(): Promise<void>;
}

/** One engine's browser for a test file. */
interface EngineBrowser {
  newPage(): Promise<EnginePage>;
  close(): Promise<void>;
}

/** The page's visible text, shadow roots included (a function body for `run`). */
const PAGE_TEXT = `
  const parts = [];
  const walk = (root) => {
    for (const node of root.childNodes) {
      if (node.nodeType === 3) parts.push(node.textContent);
      else if (node.nodeType === 1) {
        if (node.tagName === 'SCRIPT' || node.tagName === 'STYLE') continue;
        if (node.shadowRoot) walk(node.shadowRoot);
        walk(node);
      }
    }
  };
  walk(document.body);
  return parts.join(' ').replace(/\\s+/g, ' ');`;

/** The button whose text is arguments[0], in the page or a shadow root, or null (a function body for `run`). */
const FIND_BUTTON = `
  const find = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.tagName === 'BUTTON' && el.textContent.replace(/\\s+/g, ' ').trim() === arguments[0]) return el;
      if (el.shadowRoot) { const inner = find(el.shadowRoot); if (inner) return inner; }
    }
    return null;
  };
  return find(document);`;

/** Waits until `check` holds; on timeout the error names `what` and, if given, what the page showed last. */
async function poll(check: () => Promise<boolean>, what: string, timeoutMs: number, shown?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const last = shown ? await shown().catch((error: unknown) => `(unreadable: ${String(error)})`) : undefined;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : `; the page shows: ${last.slice(0, 500)}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The browsers of one test file; each engine's is launched at its first page (a failed launch fails that engine's tests). */
export async function openEngines(serviceOrigin: string): Promise<EngineBrowsers> {
  const launched = new Map<Engine, Promise<EngineBrowser>>();
  return {
    async newPage(engine) {
      let browser = launched.get(engine);
      if (!browser) {
        browser = (async () => {
          assertInstalled(engine);
          return engine === 'webkit' ? launchWebKit(serviceOrigin) : launchPuppeteer(engine, serviceOrigin);
        })();
        launched.set(engine, browser);
      }
      return (await browser).newPage();
    },
    async close() {
      for (const browser of launched.values()) await (await browser.catch(() => undefined))?.close();
      launched.clear();
    },
  };
}

/** One page in a browser of its own, closed with it (a test that needs no other page of its engine). */
export async function openEnginePage(engine: Engine, serviceOrigin: string): Promise<EnginePage> {
  const browsers = await openEngines(serviceOrigin);
  try {
    const page = await browsers.newPage(engine);
    return {
      ...page,
      async close() {
        await page.close();
        await browsers.close();
      },
    };
  } catch (error) {
    await browsers.close();
    throw error;
  }
}

async function launchPuppeteer(engine: 'chromium' | 'firefox', serviceOrigin: string): Promise<EngineBrowser> {
  const browser: Browser = await puppeteer.launch(puppeteerLaunchOptions(engine));
  return {
    async newPage() {
      const context = await browser.createBrowserContext();
      try {
        return puppeteerPage(engine, await context.newPage(), serviceOrigin, () => context.close());
      } catch (error) {
        await context.close().catch(() => undefined);
        throw error;
      }
    },
    close: () => browser.close(),
  };
}

function puppeteerPage(engine: 'chromium' | 'firefox', page: Page, serviceOrigin: string, close: () => Promise<void>): EnginePage {
  const run = <T>(script: string, ...args: unknown[]): Promise<T> =>
    page.evaluate(`(function () { ${script} }).apply(null, ${JSON.stringify(args)})`) as Promise<T>;
  const findButton = async (text: string): Promise<ElementHandle<Element> | null> =>
    (await page.evaluateHandle(`(function () { ${FIND_BUTTON} }).call(null, ${JSON.stringify(text)})`)).asElement() as ElementHandle<Element> | null;
  const shown = (): Promise<string> => run<string>(PAGE_TEXT);
  return {
    engine,
    person: puppeteerPerson(engine, page, serviceOrigin),
    async goto(url) {
      await page.goto(url, { waitUntil: 'load' });
    },
    async reload() {
      await page.reload({ waitUntil: 'load' });
    },
    run,
    async clickButton(text, timeoutMs = 10_000) {
      let handle: ElementHandle<Element> | null = null;
      await poll(async () => (handle = await findButton(text)) !== null, `a button "${text}"`, timeoutMs, shown);
      await handle!.click();
    },
    async waitForText(text, timeoutMs = 10_000) {
      await poll(async () => (await shown()).includes(text), `"${text}" on the page`, timeoutMs, shown);
    },
    close,
  };
}

async function launchWebKit(serviceOrigin: string): Promise<EngineBrowser> {
  const server = await startWebKitDriver();
  // WebKitWebDriver runs one session at a time: one a test left open is ended before the next begins
  let current: WebDriverBrowser | undefined;
  const end = async (): Promise<void> => {
    await current?.deleteSession().catch(() => undefined);
    current = undefined;
  };
  return {
    async newPage() {
      await end();
      // a new session is a new MiniBrowser: no cookie, storage or window of the page before it is left
      const driver = (current = await remote(server.options));
      return webdriverPage(driver, serviceOrigin, async () => {
        if (current === driver) await end();
      });
    },
    async close() {
      await end();
      await server.close();
    },
  };
}

function webdriverPage(driver: WebDriverBrowser, serviceOrigin: string, close: () => Promise<void>): EnginePage {
  const run = <T>(script: string, ...args: unknown[]): Promise<T> => driver.execute(script, ...args) as Promise<T>;
  const shown = (): Promise<string> => run<string>(PAGE_TEXT);
  return {
    engine: 'webkit',
    person: webdriverPerson(driver, serviceOrigin),
    async goto(url) {
      await driver.navigateTo(url);
    },
    async reload() {
      await driver.refresh();
    },
    run,
    async clickButton(text, timeoutMs = 10_000) {
      let button: unknown = null;
      await poll(async () => (button = await driver.execute(FIND_BUTTON, text)) !== null, `a button "${text}"`, timeoutMs, shown);
      const id = Object.values(button as Record<string, string>)[0]!;
      await driver.elementClick(id);
    },
    async waitForText(text, timeoutMs = 10_000) {
      await poll(async () => (await shown()).includes(text), `"${text}" on the page`, timeoutMs, shown);
    },
    close,
  };
}
