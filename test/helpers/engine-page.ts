/**
 * One browser window in any of the three engines, for end-to-end tests that run the same steps in each: open a page,
 * click a button as a person does (a real click, so a popup opens from it), read what the page shows (shadow roots
 * included), run a script, reload; `person` acts in the consent popup and the embedded frames (browser-person.ts).
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
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

async function poll(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function openEnginePage(engine: Engine, serviceOrigin: string): Promise<EnginePage> {
  assertInstalled(engine);
  return engine === 'webkit' ? openWebDriverPage(serviceOrigin) : openPuppeteerPage(engine, serviceOrigin);
}

async function openPuppeteerPage(engine: 'chromium' | 'firefox', serviceOrigin: string): Promise<EnginePage> {
  const browser: Browser = await puppeteer.launch(puppeteerLaunchOptions(engine));
  const page: Page = await browser.newPage();
  const run = <T>(script: string, ...args: unknown[]): Promise<T> =>
    page.evaluate(`(function () { ${script} }).apply(null, ${JSON.stringify(args)})`) as Promise<T>;
  const self: EnginePage = {
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
      await poll(
        async () => await page.evaluateHandle(`(function () { ${FIND_BUTTON} }).call(null, ${JSON.stringify(text)})`).then((h) => h.asElement() !== null),
        `a button "${text}"`,
        timeoutMs,
      );
      const handle = (await page.evaluateHandle(`(function () { ${FIND_BUTTON} }).call(null, ${JSON.stringify(text)})`)).asElement();
      if (!handle) throw new Error(`no button "${text}"`);
      await (handle as import('puppeteer-core').ElementHandle<Element>).click();
    },
    async waitForText(text, timeoutMs = 10_000) {
      await poll(async () => (await run<string>(PAGE_TEXT)).includes(text), `"${text}" on the page`, timeoutMs);
    },
    close: () => browser.close(),
  };
  return self;
}

async function openWebDriverPage(serviceOrigin: string): Promise<EnginePage> {
  const server = await startWebKitDriver();
  let driver: WebDriverBrowser;
  try {
    driver = await remote(server.options);
  } catch (error) {
    await server.close();
    throw error;
  }
  const run = <T>(script: string, ...args: unknown[]): Promise<T> => driver.execute(script, ...args) as Promise<T>;
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
      await poll(async () => (button = await driver.execute(FIND_BUTTON, text)) !== null, `a button "${text}"`, timeoutMs);
      const id = Object.values(button as Record<string, string>)[0]!;
      await driver.elementClick(id);
    },
    async waitForText(text, timeoutMs = 10_000) {
      await poll(async () => (await run<string>(PAGE_TEXT)).includes(text), `"${text}" on the page`, timeoutMs);
    },
    async close() {
      await driver.deleteSession().catch(() => undefined);
      await server.close();
    },
  };
}
