import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { publicConfigSchema } from '#shared/system.ts';
import { api } from '#web/lib/api.ts';

export const chatLoadingMessage = 'Chat is loading, please try again in a moment.';

/** The global chat opener: the configured third-party widget in a panel, else a notice in the page. */
export function ChatOpener() {
  const [isOpen, setIsOpen] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    if (!notice) return;
    const timer = window.setTimeout(() => setNotice(null), 8000);
    return () => window.clearTimeout(timer);
  }, [notice]);
  const { data } = useQuery({ queryKey: ['public-config'], queryFn: () => api.get('/api/system/config', publicConfigSchema), staleTime: Infinity });
  const widgetUrl = data?.chatWidgetUrl ?? null;
  const open = () => {
    if (!widgetUrl) {
      setNotice(chatLoadingMessage);
      return;
    }
    setIsOpen((value) => !value);
  };
  return (
    <>
      {isOpen && widgetUrl ? (
        <aside className="chat-panel" aria-label="Live chat">
          <iframe title="Live chat" src={widgetUrl} />
        </aside>
      ) : null}
      {notice ? (
        <p className="chat-notice" role="status">
          {notice}
        </p>
      ) : null}
      <button type="button" className="chat-opener" onClick={open} aria-expanded={isOpen}>
        Chat with us
      </button>
    </>
  );
}
