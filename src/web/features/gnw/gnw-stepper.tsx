import { useEffect, useRef } from 'react';
import type { GnwStep } from '#shared/gnw.ts';
import { getStepperItems } from './setup-view.ts';

/** Where the person is in the wizard: every step, the current one marked for screen readers too. */
export function GnwStepper({ current }: { current: GnwStep }) {
  const items = getStepperItems(current);
  return (
    <nav aria-label="Notarize Now steps">
      <ol className="gnw-stepper">
        {items.map((item) => (
          <li key={item.step} data-state={item.state} aria-current={item.state === 'current' ? 'step' : undefined}>
            {item.label}
            {item.state === 'done' ? <span className="visually-hidden"> (done)</span> : null}
          </li>
        ))}
      </ol>
    </nav>
  );
}

/** A step's heading; the focus moves to it when the screen changes (not on the first load), so a screen reader starts there. */
export function StepHeading({ children, focusKey }: { children: string; focusKey: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const shownKey = useRef<string | null>(null);
  useEffect(() => {
    if (shownKey.current !== null && shownKey.current !== focusKey) ref.current?.focus();
    shownKey.current = focusKey;
  }, [focusKey]);
  return (
    <h2 ref={ref} tabIndex={-1} className="gnw-step-heading">
      {children}
    </h2>
  );
}
