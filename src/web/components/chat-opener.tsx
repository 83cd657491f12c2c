import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useMemo, useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { publicConfigQueryOptions } from '#web/api/system.ts';

export const chatLoadingMessage = 'Chat is loading, please try again in a moment.';

/**
 * The global chat opener sits in the flow of the page, never floating over it: at
 * the foot of every page, or where a page puts it (the dashboard layout's footer, the signing
 * workspace's tools). A page that places its own claims the spot, and the site footer steps aside.
 */
const ChatPlacementContext = createContext<{ claim: () => () => void; notice: string | null; setNotice: (notice: string | null) => void } | null>(null);

/** Provides the site footer with the chat opener, shown unless the page in view places its own. */
export function ChatPlacement({ children }: { children: ReactNode }) {
  const [claims, setClaims] = useState(0);
  // Kept here, not in the opener: a page that places its own opener while it loads replaces the
  // footer's, and a notice from a click on the footer's must not vanish with it.
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    if (!notice) return;
    const timer = window.setTimeout(() => setNotice(null), 8000);
    return () => window.clearTimeout(timer);
  }, [notice]);
  const claim = useCallback(() => {
    setClaims((count) => count + 1);
    return () => setClaims((count) => count - 1);
  }, []);
  const placement = useMemo(() => ({ claim, notice, setNotice }), [claim, notice]);
  return (
    <ChatPlacementContext.Provider value={placement}>
      {children}
      {claims === 0 ? (
        <footer className="site-footer">
          <ChatOpener />
        </footer>
      ) : null}
    </ChatPlacementContext.Provider>
  );
}

/** The chat opener placed by a page itself (inside its own layout). */
export function PageChatOpener() {
  const claim = useContext(ChatPlacementContext)?.claim;
  // Before paint, so the site footer never flashes in beside a full-height page.
  useLayoutEffect(() => claim?.(), [claim]);
  return <ChatOpener />;
}

/** The configured third-party widget in a panel, else a notice beside the button. */
function ChatOpener() {
  const [isOpen, setIsOpen] = useState(false);
  const placement = useContext(ChatPlacementContext);
  const [ownNotice, setOwnNotice] = useState<string | null>(null);
  const notice = placement ? placement.notice : ownNotice;
  const setNotice = placement ? placement.setNotice : setOwnNotice;
  const { data } = useQuery(publicConfigQueryOptions());
  const widgetUrl = data?.chatWidgetUrl ?? null;
  const open = () => {
    if (!widgetUrl) {
      setNotice(chatLoadingMessage);
      return;
    }
    setIsOpen((value) => !value);
  };
  return (
    <div className="chat">
      <p className="chat-notice" role="status">
        {notice}
      </p>
      <button type="button" className="button chat-opener" onClick={open} aria-expanded={isOpen}>
        Chat with us
      </button>
      {isOpen && widgetUrl ? (
        // Opened on request, like a dialog: the one thing allowed to sit over the page, with its own close button.
        <aside className="chat-panel" aria-label="Live chat">
          <button type="button" className="button chat-close" onClick={() => setIsOpen(false)}>
            Close chat
          </button>
          <iframe title="Live chat" src={widgetUrl} />
        </aside>
      ) : null}
    </div>
  );
}
