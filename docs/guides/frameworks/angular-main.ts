// src/main.ts (Angular SSR): the browser's entry only (not main.server.ts); the tags are defined before hydration
import 'esign-elements';
import { bootstrapApplication } from '@angular/platform-browser';
import { App } from './app/app';
import { appConfig } from './app/app.config';

bootstrapApplication(App, appConfig).catch((error: unknown) => console.error(error));
