/**
 * Scrolling inside the workspace's own panes. `element.scrollIntoView` scrolls every scrollable
 * ancestor, the window and `overflow: hidden` boxes included: in the session room that pushed the
 * whole room (toolbar, call) off the top and left a grey band. These scroll the pane alone.
 */

export type ScrollBlock = 'start' | 'center' | 'nearest';

interface PaneMetrics {
  /** The pane's top on screen (getBoundingClientRect) and its visible height. */
  top: number;
  height: number;
  scrollTop: number;
  scrollHeight: number;
  /** Room kept above an element brought to the start (the pane's top padding). */
  paddingTop: number;
}

/** The pane's scrollTop that shows a target (its top and height on screen) at the start, centre or nearest edge. */
export function findScrollTop(pane: PaneMetrics, target: { top: number; height: number }, block: ScrollBlock): number {
  const offset = target.top - pane.top;
  let next = pane.scrollTop;
  if (block === 'start') next = pane.scrollTop + offset - pane.paddingTop;
  else if (block === 'center') next = pane.scrollTop + offset - (pane.height - target.height) / 2;
  else if (offset < 0) next = pane.scrollTop + offset;
  else if (offset + target.height > pane.height) next = pane.scrollTop + offset + target.height - pane.height;
  return Math.max(0, Math.min(pane.scrollHeight - pane.height, next));
}

/** The nearest ancestor that scrolls vertically by itself (overflow auto or scroll). */
function findPane(element: HTMLElement): HTMLElement | null {
  for (let parent = element.parentElement; parent; parent = parent.parentElement) {
    const { overflowY } = getComputedStyle(parent);
    if (overflowY === 'auto' || overflowY === 'scroll') return parent;
  }
  return null;
}

/** Scrolls the pane holding `element` (never the window) so the element shows as `block` says, and sideways into sight. */
export function scrollIntoPane(element: Element | null, block: ScrollBlock) {
  if (!(element instanceof HTMLElement)) return;
  const pane = findPane(element);
  if (!pane) return;
  const box = pane.getBoundingClientRect();
  const target = element.getBoundingClientRect();
  pane.scrollTop = findScrollTop(
    {
      top: box.top + pane.clientTop,
      height: pane.clientHeight,
      scrollTop: pane.scrollTop,
      scrollHeight: pane.scrollHeight,
      paddingTop: parseFloat(getComputedStyle(pane).paddingTop) || 0,
    },
    { top: target.top, height: target.height },
    block,
  );
  // Sideways (a page zoomed wider than the pane) only as far as needed: the same rule on the other axis.
  pane.scrollLeft = findScrollTop(
    { top: box.left + pane.clientLeft, height: pane.clientWidth, scrollTop: pane.scrollLeft, scrollHeight: pane.scrollWidth, paddingTop: 0 },
    { top: target.left, height: target.width },
    'nearest',
  );
}
