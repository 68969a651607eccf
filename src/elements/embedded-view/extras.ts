/**
 * What the embedded views add to an element once their later part loads, beside the view's controller: the phone
 * sheet (`sheet`) and `esign-activity` for host idle timers. Reactive controllers of their own, so the view's
 * controller knows nothing of them.
 */
import { ActivityController } from '../shared/activity.js';
import type { LocalizeController } from '../shared/localize.js';
import type { StateTerms } from './embedded-view.messages.js';
import { SheetController, type SheetHost } from './sheet.js';

/** `words`: the element's words of the later states (the sheet's close button is one). */
export function attachExtras(host: SheetHost, words: Pick<LocalizeController<StateTerms>, 'term'>): void {
  new SheetController(host, words);
  // the shown frame only: a blank one built ahead of need has no part and is not the page
  new ActivityController(host, () => host.shadowRoot?.querySelector('iframe[part~="frame"]'));
}
