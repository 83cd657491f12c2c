import { describe, expect, it } from 'vitest';
import { getComboboxKeyResult } from './combobox-keys.ts';

const closed = { isOpen: false, activeIndex: -1, count: 3, hasTypedText: false };
const open = (activeIndex: number, count = 3) => ({ isOpen: true, activeIndex, count, hasTypedText: true });

describe('combobox keys', () => {
  it('opens the list on the first option with Down and on the last with Up', () => {
    expect(getComboboxKeyResult('ArrowDown', closed)).toEqual({ kind: 'move', activeIndex: 0 });
    expect(getComboboxKeyResult('ArrowUp', closed)).toEqual({ kind: 'move', activeIndex: 2 });
  });

  it('moves through an open list and wraps round at either end', () => {
    expect(getComboboxKeyResult('ArrowDown', open(-1))).toEqual({ kind: 'move', activeIndex: 0 });
    expect(getComboboxKeyResult('ArrowDown', open(0))).toEqual({ kind: 'move', activeIndex: 1 });
    expect(getComboboxKeyResult('ArrowDown', open(2))).toEqual({ kind: 'move', activeIndex: 0 });
    expect(getComboboxKeyResult('ArrowUp', open(1))).toEqual({ kind: 'move', activeIndex: 0 });
    expect(getComboboxKeyResult('ArrowUp', open(0))).toEqual({ kind: 'move', activeIndex: 2 });
  });

  it('jumps to the first or last option with Home and End once an option is active, else leaves them to the text', () => {
    expect(getComboboxKeyResult('Home', open(2))).toEqual({ kind: 'move', activeIndex: 0 });
    expect(getComboboxKeyResult('End', open(0))).toEqual({ kind: 'move', activeIndex: 2 });
    expect(getComboboxKeyResult('Home', open(-1))).toEqual({ kind: 'none' });
  });

  it('chooses the active option with Enter, and leaves Enter alone when nothing is active', () => {
    expect(getComboboxKeyResult('Enter', open(1))).toEqual({ kind: 'choose', index: 1 });
    expect(getComboboxKeyResult('Enter', open(-1))).toEqual({ kind: 'none' });
    expect(getComboboxKeyResult('Enter', closed)).toEqual({ kind: 'none' });
  });

  it('closes an open list with Escape, then drops the text typed, then leaves Escape to the page', () => {
    expect(getComboboxKeyResult('Escape', open(1))).toEqual({ kind: 'close' });
    expect(getComboboxKeyResult('Escape', { ...closed, hasTypedText: true })).toEqual({ kind: 'revert-text' });
    expect(getComboboxKeyResult('Escape', closed)).toEqual({ kind: 'none' });
  });

  it('does nothing with arrows when there are no options, and leaves typing to the text box', () => {
    expect(getComboboxKeyResult('ArrowDown', { ...closed, count: 0 })).toEqual({ kind: 'none' });
    expect(getComboboxKeyResult('ArrowUp', open(-1, 0))).toEqual({ kind: 'none' });
    expect(getComboboxKeyResult('a', open(0))).toEqual({ kind: 'none' });
    expect(getComboboxKeyResult('Tab', open(0))).toEqual({ kind: 'none' });
  });
});
