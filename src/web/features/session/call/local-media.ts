/** The camera and microphone this browser sends to the hub. */

type Kind = 'audio' | 'video';

const videoShape = { width: { ideal: 640 }, height: { ideal: 360 }, frameRate: { ideal: 24 } };

function constraintsFor(kind: Kind, deviceId: string | null): MediaTrackConstraints | boolean {
  const device = deviceId ? { deviceId: { exact: deviceId } } : {};
  return kind === 'video' ? { ...videoShape, ...device } : { echoCancellation: true, noiseSuppression: true, ...device };
}

/** A sentence for why the browser gave no camera or microphone. */
export function describeMediaError(error: unknown): string {
  const name = error instanceof DOMException || error instanceof Error ? error.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError')
    return 'Your browser blocked the camera and microphone. Allow them in the address bar, then reload the page.';
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'The chosen camera or microphone is not connected. Choose another one.';
  if (name === 'NotReadableError' || name === 'AbortError') return 'Another app is using your camera or microphone. Close it, then try again.';
  return 'Your camera and microphone could not be started.';
}

/** One track of `kind` from the chosen device; the default device when the chosen one is gone. */
export async function openTrack(kind: Kind, deviceId: string | null): Promise<MediaStreamTrack> {
  const ask = async (id: string | null) => {
    const stream = await navigator.mediaDevices.getUserMedia({ [kind]: constraintsFor(kind, id) });
    const track = stream.getTracks().find((candidate) => candidate.kind === kind);
    if (!track) throw new DOMException('No track', 'NotFoundError');
    return track;
  };
  try {
    return await ask(deviceId);
  } catch (error) {
    if (!deviceId || !(error instanceof DOMException) || !['NotFoundError', 'OverconstrainedError'].includes(error.name)) throw error;
    return ask(null);
  }
}

/** The microphone and (unless the camera starts off) the camera; either may fail alone, with a sentence. */
export async function openLocalTracks(input: { cameraId: string | null; microphoneId: string | null; videoOff: boolean }): Promise<{
  audio: MediaStreamTrack | null;
  video: MediaStreamTrack | null;
  error: string | null;
}> {
  const audio = await openTrack('audio', input.microphoneId).catch((error: unknown) => error);
  const video = input.videoOff ? null : await openTrack('video', input.cameraId).catch((error: unknown) => error);
  const failed = [audio, video].find((result) => result !== null && !(result instanceof MediaStreamTrack));
  return {
    audio: audio instanceof MediaStreamTrack ? audio : null,
    video: video instanceof MediaStreamTrack ? video : null,
    error: failed === undefined ? null : describeMediaError(failed),
  };
}
