import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../test/helpers/chromium.js';
import { openStory } from '../test/helpers/storybook-site.js';
import { createServer } from 'node:http';
