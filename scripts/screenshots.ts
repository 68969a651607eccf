/**
 * `npm run screenshots [-- --out DIR] [-- --filter TEXT]`: builds Storybook, starts the emulator and token proxy,
 * and writes a PNG of every story on a light host, a dark host and a 390 px wide phone (light) to DIR
 * (default screenshots/), named `<story-id>--<mode>.png`. Prints the axe violations it meets on the way.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../test/helpers/chromium.js';
import { holdsARequest, openStory, seriousAxeViolations, startStorybookSite } from '../test/helpers/storybook-site.js';

const { values } = parseArgs({ options: { out: { type: 'string' }, filter: { type: 'string' } } });
const out = values.out ?? 'screenshots';
mkdirSync(out, { recursive: true });

const MODES = [
  { name: 'light', host: 'light', width: 1100 },
  { name: 'dark', host: 'dark', width: 1100 },
  { name: 'mobile', host: 'light', width: 390 },
] as const;

const site = await startStorybookSite();
const browser = await chromium.launch(chromiumLaunchOptions());
let shots = 0;
try {
  const stories = site.entries.filter((e) => e.type === 'story' && (!values.filter || e.id.includes(values.filter)));
  for (const mode of MODES) {
    const context = await browser.newContext({ viewport: { width: mode.width, height: 900 }, deviceScaleFactor: 1 });
    for (const entry of stories) {
      const page = await context.newPage();
      await openStory(page, site.origin, entry, mode.host, holdsARequest(entry, site.entries));
      // grow the viewport to the page instead of fullPage (which resizes after layout, and frames inside lag behind)
      const height = await page.evaluate(() => Math.ceil(document.documentElement.scrollHeight));
      await page.setViewportSize({ width: mode.width, height: Math.min(Math.max(height, 600), 4000) });
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(out, `${entry.id}--${mode.name}.png`) });
      shots++;
      const violations = await seriousAxeViolations(page);
      for (const v of violations) console.log(`axe ${mode.name} ${entry.id}: ${v.impact} ${v.id} ${v.targets.join(' ')}`);
      await page.close();
    }
    await context.close();
  }
} finally {
  await browser.close();
  await site.close();
}
console.log(`${shots} screenshots in ${out}/`);
