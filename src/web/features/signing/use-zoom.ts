import { useCallback, useState } from 'react';
import { storageKeys } from '#web/lib/browser-storage.ts';

export const zoomSteps = [0.6, 0.8, 1, 1.25, 1.5, 2] as const;

function readZoom(key: string): number {
  try {
    const stored = Number(localStorage.getItem(key));
    return zoomSteps.includes(stored as (typeof zoomSteps)[number]) ? stored : 1;
  } catch {
    return 1;
  }
}

/** The workspace zoom, remembered per person in local storage. 1 means the page fits the column (at most 1.3 CSS px per point). */
export function useRememberedZoom(userId: string | null) {
  const key = `${storageKeys.signingZoomPrefix}${userId ?? 'anonymous'}`;
  const [state, setState] = useState(() => ({ key, zoom: readZoom(key) }));
  const zoom = state.key === key ? state.zoom : readZoom(key);
  const step = useCallback(
    (direction: 1 | -1) => {
      const index = zoomSteps.indexOf(zoom as (typeof zoomSteps)[number]);
      const next = zoomSteps[Math.min(zoomSteps.length - 1, Math.max(0, index + direction))] ?? 1;
      try {
        localStorage.setItem(key, String(next));
      } catch {
        // storage may be blocked; the zoom still applies to this visit
      }
      setState({ key, zoom: next });
    },
    [key, zoom],
  );
  return { zoom, canZoomOut: zoom > Math.min(...zoomSteps), canZoomIn: zoom < Math.max(...zoomSteps), zoomIn: () => step(1), zoomOut: () => step(-1) };
}
