import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { publicConfigSchema } from '#shared/system.ts';
import { api } from '#web/lib/api.ts';

export const chatLoadingMessage = 'Chat is loading, please try again in a moment.';

/** The global chat opener: the configured third-party widget in a panel, else an alert. */
export function ChatOpener() {
  const [isOpen, setIsOpen] = useState(false);
  const { data } = useQuery({ queryKey: ['public-config'], queryFn: () => api.get('/api/system/config', publicConfigSchema), staleTime: Infinity });
  const widgetUrl = data?.chatWidgetUrl ?? null;
  const open = () => {
    if (!widgetUrl) {
      window.alert(chatLoadingMessage);
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
      <button type="button" className="chat-opener" onClick={open} aria-expanded={isOpen}>
        Chat with us
      </button>
    </>
  );
}
