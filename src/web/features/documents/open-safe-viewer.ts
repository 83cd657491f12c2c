import { sandboxLinkSchema } from '#shared/documents.ts';
import { api } from '#web/lib/api.ts';

/**
 * Opens the safe viewer (decision 053) in a new tab: the tab is opened at the click, while the
 * browser still counts it as the person's own action, and sent to the short-lived link once the
 * server has made it. The viewer page cannot reach this tab (it has no opener and an opaque origin).
 */
export async function openSafeViewer(linkPath: string): Promise<'opened' | 'blocked'> {
  const tab = window.open('', '_blank');
  if (!tab) return 'blocked';
  tab.opener = null;
  try {
    const link = await api.get(linkPath, sandboxLinkSchema);
    tab.location.replace(link.url);
    return 'opened';
  } catch (error) {
    tab.close();
    throw error;
  }
}

export const popupBlockedMessage = 'Your browser blocked the new tab. Allow pop-ups for this site, then try again.';
