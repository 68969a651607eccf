/**
 * `esign-elements/headless`: the behaviour of the elements without their look, for a Lit element of your own (bring
 * your own UI). Registers no tag.
 *
 * - The view machine of <esign-signing-frame> and <esign-contract-list>: `transition(state, event)` returns the next
 *   state and its effects, as data (no DOM, no timers): `initialViewState`, `transition`, `MAX_AUTO_RENEWALS`.
 * - The view controller that performs them: `new EmbeddedViewController(host, {operateType, fileIds})` in your
 *   element's constructor; your template reads `status`, `error`, `viewId`, `framePending`, … and renders the frame
 *   (docs/guides/headless.md).
 */
export {
  initialViewState,
  transition,
  MAX_AUTO_RENEWALS,
  type ViewState,
  type ViewEvent,
  type ViewEffect,
  type Transition,
} from './elements/embedded-view/machine.js';
export { EmbeddedViewController, isShown, type EmbeddedViewHost, type EmbeddedViewOptions } from './elements/embedded-view/controller.js';
export { FRAME_ALLOW, FRAME_SANDBOX_BLANK, type OperateType, type ViewDisplay, type ViewResult, type ViewStatus } from './elements/embedded-view/rules.js';
