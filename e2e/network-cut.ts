import type { Page } from '@playwright/test';

export interface NetworkCut {
  /** Cuts or restores the page's network: the signaling socket goes silent, new sockets fail, the context is offline. */
  set(isCut: boolean): Promise<void>;
}

/**
 * Routes the page's signaling socket through the test so a dropped network can be played as it
 * happens: nothing closes, messages just stop (the browser must notice by itself), and a socket
 * opened meanwhile fails.
 */
export async function cuttableNetwork(page: Page): Promise<NetworkCut> {
  let isCut = false;
  await page.routeWebSocket(/\/api\/video\/signal$/, (socket) => {
    if (isCut) {
      socket.close({ code: 1011, reason: 'network down' });
      return;
    }
    const server = socket.connectToServer();
    socket.onMessage((message) => !isCut && server.send(message));
    server.onMessage((message) => !isCut && socket.send(message));
  });
  return {
    async set(cut) {
      isCut = cut;
      await page.context().setOffline(cut);
    },
  };
}
