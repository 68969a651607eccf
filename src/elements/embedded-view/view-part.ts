/**
 * The embedded views' one lazy part, loaded by the element (element.ts, with `LazyPart`) once it has a session, a bad
 * setting or is opened: the view's controller (controller.ts, which brings the frame and the popup, view-frame.ts, and
 * the machine), the phone sheet (sheet.ts) and esign-activity.
 */
export { EmbeddedViewController } from './controller.js';
export { SheetController } from './sheet.js';
export { ActivityController } from '../shared/activity.js';
