import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { FormAlert } from './field.tsx';

interface Notice {
  tone: 'success' | 'error';
  message: string;
}

/**
 * What a finished action says ("Invitation sent to …", or the server's refusal), in a notice that
 * takes the focus, so a keyboard or screen reader user hears it after a dialog closes or the button
 * they pressed is gone. Render `notice` where the result belongs.
 */
export function useNotice(): { notice: ReactNode; show: (message: string, tone?: Notice['tone']) => void; clear: () => void } {
  const [current, setCurrent] = useState<Notice | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (current) ref.current?.focus();
  }, [current]);
  const show = useCallback((message: string, tone: Notice['tone'] = 'success') => setCurrent({ message, tone }), []);
  const clear = useCallback(() => setCurrent(null), []);
  const notice = (
    <div ref={ref} tabIndex={-1} className="decision-outcome">
      <FormAlert message={current?.message ?? null} tone={current?.tone ?? 'success'} />
    </div>
  );
  return { notice, show, clear };
}
