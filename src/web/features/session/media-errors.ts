/** Which devices a failed camera or microphone request was about. */
export type MediaKind = 'camera' | 'microphone' | 'both';

const kindWords: Record<MediaKind, string> = { camera: 'camera', microphone: 'microphone', both: 'camera and microphone' };

/**
 * A plain sentence for a getUserMedia failure (DOMException names), saying what is wrong and what
 * to do about it. `kind` is the device the failed request asked for.
 */
export function describeMediaError(error: unknown, kind: MediaKind): string {
  const name = error instanceof Error || (typeof error === 'object' && error !== null && 'name' in error) ? String((error as { name: unknown }).name) : '';
  const words = kindWords[kind];
  switch (name) {
    case 'NotAllowedError':
    case 'PermissionDeniedError':
      return `Your browser is not letting this page use your ${words}. Click the camera icon or the padlock in the address bar, choose Allow for the ${words}, then press Check again.`;
    case 'NotFoundError':
    case 'DevicesNotFoundError':
      return kind === 'both'
        ? 'No camera or microphone was found. Connect them (or turn them on in your computer’s settings), then press Check again.'
        : `No ${words} was found. Connect one (or turn it on in your computer’s settings), then press Check again.`;
    case 'NotReadableError':
    case 'TrackStartError':
      return `Another app is using your ${words} (a video call, for example). Close it, then press Check again.`;
    case 'OverconstrainedError':
      return `The ${words} you chose is no longer available. Choose another one.`;
    case 'SecurityError':
      return `This page may not use a ${words} here. Open it over https (the address starts with https://).`;
    case 'AbortError':
      return `Your ${words} did not start. Unplug it and plug it back in, then press Check again.`;
    default:
      return `Your ${words} could not be started. Press Check again, or try another browser.`;
  }
}
