/** What a key does in a combobox (WAI-ARIA combobox pattern, list autocomplete, manual selection). */
export type ComboboxKeyResult =
  { kind: 'move'; activeIndex: number } | { kind: 'choose'; index: number } | { kind: 'close' } | { kind: 'revert-text' } | { kind: 'none' };

/**
 * The effect of a key press given whether the list is open, the active option (-1 for none) and
 * how many options there are. Down and Up open the list and move through it, wrapping round; Enter
 * chooses the active option; Escape closes an open list, then drops the text typed (the box shows
 * the choice again), then is left to the page (a dialog closes). 'none' leaves the key to the
 * browser (typing, Tab, Enter with nothing active).
 */
export function getComboboxKeyResult(key: string, state: { isOpen: boolean; activeIndex: number; count: number; hasTypedText: boolean }): ComboboxKeyResult {
  const { isOpen, activeIndex, count, hasTypedText } = state;
  switch (key) {
    case 'ArrowDown':
      if (count === 0) return { kind: 'none' };
      return { kind: 'move', activeIndex: !isOpen || activeIndex < 0 ? 0 : (activeIndex + 1) % count };
    case 'ArrowUp':
      if (count === 0) return { kind: 'none' };
      return { kind: 'move', activeIndex: !isOpen || activeIndex <= 0 ? count - 1 : activeIndex - 1 };
    case 'Home':
      return isOpen && count > 0 && activeIndex >= 0 ? { kind: 'move', activeIndex: 0 } : { kind: 'none' };
    case 'End':
      return isOpen && count > 0 && activeIndex >= 0 ? { kind: 'move', activeIndex: count - 1 } : { kind: 'none' };
    case 'Enter':
      return isOpen && activeIndex >= 0 && activeIndex < count ? { kind: 'choose', index: activeIndex } : { kind: 'none' };
    case 'Escape':
      if (isOpen) return { kind: 'close' };
      return hasTypedText ? { kind: 'revert-text' } : { kind: 'none' };
    default:
      return { kind: 'none' };
  }
}
