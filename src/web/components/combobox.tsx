import './controls.css';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { getComboboxKeyResult } from './combobox-keys.ts';
import { describedByOf, FieldNotes } from './field.tsx';

export interface ComboboxProps<T> {
  label: string;
  /** Said below the box and read with it: what can be searched. */
  hint?: ReactNode;
  error?: string | null;
  /** The options matching the text typed so far (the caller searches). */
  options: readonly T[];
  value: T | null;
  onChange: (value: T | null) => void;
  /** The text typed, for the caller to search with. */
  onSearch: (text: string) => void;
  getKey: (option: T) => string;
  /** The text the box shows once an option is chosen. */
  getText: (option: T) => string;
  renderOption: (option: T) => ReactNode;
  isLoading?: boolean;
  /** Said in the list when nothing matches. */
  emptyMessage: string;
  /** The name of the button that clears the choice ("Clear the notary"); no button when absent. */
  clearLabel?: string;
  placeholder?: string;
  disabled?: boolean;
}

/**
 * An editable combobox with a list of suggestions (WAI-ARIA combobox pattern): type to search,
 * Down/Up to move, Enter to choose, Escape to close; the options are at least 44 px tall.
 */
export function Combobox<T>(props: ComboboxProps<T>) {
  const {
    label,
    hint,
    error,
    options: givenOptions,
    value,
    onChange,
    onSearch,
    getKey,
    getText,
    renderOption,
    isLoading = false,
    emptyMessage,
    clearLabel,
    placeholder,
    disabled,
  } = props;
  // While a search runs, the options at hand answer an older text: none of them may be chosen (a
  // quick Down and Enter would pick someone the person never searched for), so none is shown.
  const options = isLoading ? [] : givenOptions;
  const id = useId();
  const listId = `${id}-list`;
  const [text, setText] = useState(value ? getText(value) : '');
  const [isOpen, setIsOpen] = useState(false);
  const [activeIndex, setActiveIndex] = useState(-1);
  const listRef = useRef<HTMLUListElement>(null);
  const valueText = value ? getText(value) : '';

  // A choice made elsewhere (or cleared) shows in the box.
  const [shownValueText, setShownValueText] = useState(valueText);
  if (shownValueText !== valueText) {
    setShownValueText(valueText);
    setText(valueText);
  }

  // The active option stays in view as the arrows move through a long list.
  useEffect(() => {
    if (activeIndex < 0) return;
    listRef.current?.querySelector(`[data-index="${activeIndex}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [activeIndex]);

  const choose = (option: T) => {
    onChange(option);
    setText(getText(option));
    setIsOpen(false);
    setActiveIndex(-1);
  };
  const close = () => {
    setIsOpen(false);
    setActiveIndex(-1);
  };

  const describedBy = describedByOf(id, hint, error);
  const isListShown = isOpen && options.length > 0;
  const activeId = isListShown && activeIndex >= 0 && activeIndex < options.length ? `${id}-option-${activeIndex}` : undefined;

  return (
    <div className="field combobox">
      <label htmlFor={id}>{label}</label>
      <div className="combobox-box">
        <input
          id={id}
          type="text"
          role="combobox"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={isListShown}
          aria-controls={listId}
          aria-activedescendant={activeId}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          placeholder={placeholder}
          disabled={disabled}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            onSearch(event.target.value);
            setIsOpen(true);
            setActiveIndex(-1);
          }}
          onClick={() => {
            if (!isOpen) {
              onSearch(text === valueText ? '' : text);
              setIsOpen(true);
            }
          }}
          onBlur={() => {
            close();
            // Text typed but not chosen is dropped: the box shows the choice again.
            setText(valueText);
          }}
          onKeyDown={(event) => {
            // Enter during a search waits for its answer; it never submits the form around the box.
            if (event.key === 'Enter' && isOpen && isLoading) {
              event.preventDefault();
              return;
            }
            const result = getComboboxKeyResult(event.key, { isOpen, activeIndex, count: options.length, hasTypedText: text !== valueText });
            if (result.kind === 'none') return;
            // Handled here: Enter must not submit the form, Escape must not close the dialog around it.
            event.preventDefault();
            event.stopPropagation();
            if (result.kind === 'move') {
              if (!isOpen) onSearch(text === valueText ? '' : text);
              setIsOpen(true);
              setActiveIndex(result.activeIndex);
            } else if (result.kind === 'choose') {
              const option = options[result.index];
              if (option) choose(option);
            } else if (result.kind === 'close') {
              close();
            } else {
              setText(valueText);
              onSearch('');
            }
          }}
        />
        {clearLabel && value && !disabled ? (
          <button
            type="button"
            className="button combobox-clear"
            aria-label={clearLabel}
            onClick={() => {
              onChange(null);
              setText('');
              onSearch('');
            }}
          >
            ×
          </button>
        ) : null}
      </div>
      {/* The list stays in the page (hidden when closed or empty) so aria-controls always points at it. */}
      <ul ref={listRef} id={listId} role="listbox" aria-label={label} className="combobox-list" hidden={!isListShown}>
        {options.map((option, index) => (
          <li
            key={getKey(option)}
            id={`${id}-option-${index}`}
            data-index={index}
            role="option"
            aria-selected={index === activeIndex}
            className={index === activeIndex ? 'combobox-option active' : 'combobox-option'}
            // Chosen before the box loses focus.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => choose(option)}
          >
            {renderOption(option)}
          </li>
        ))}
      </ul>
      {isOpen && options.length === 0 ? (
        <p className="combobox-empty" role="status">
          {isLoading ? 'Searching…' : emptyMessage}
        </p>
      ) : null}
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}
