/**
 * What the pre-join screen hands to the session room: the devices chosen and this browser's device
 * group (one per browser tab, kept for the session so a reload rejoins with the same devices).
 * Kept in session storage, per job.
 */
export interface DeviceChoice {
  /** Sent as deviceGroupId to session/join, the media token and activate. */
  deviceGroupId: string;
  cameraId: string | null;
  microphoneId: string | null;
  /** The person chose to enter with the camera off or muted. */
  videoOff: boolean;
  audioMuted: boolean;
}

const keyOf = (jobId: string) => `session_devices:${jobId}`;

export function newDeviceGroupId(): string {
  return `dg-${crypto.randomUUID()}`;
}

function isDeviceChoice(value: unknown): value is DeviceChoice {
  if (typeof value !== 'object' || value === null) return false;
  const choice = value as Record<string, unknown>;
  const isIdOrNull = (id: unknown) => id === null || typeof id === 'string';
  return (
    typeof choice.deviceGroupId === 'string' &&
    /^[\w-]{1,64}$/.test(choice.deviceGroupId) &&
    isIdOrNull(choice.cameraId) &&
    isIdOrNull(choice.microphoneId) &&
    typeof choice.videoOff === 'boolean' &&
    typeof choice.audioMuted === 'boolean'
  );
}

export function loadDeviceChoice(jobId: string): DeviceChoice | null {
  try {
    const raw = window.sessionStorage.getItem(keyOf(jobId));
    if (!raw) return null;
    const parsed: unknown = JSON.parse(raw);
    return isDeviceChoice(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function saveDeviceChoice(jobId: string, choice: DeviceChoice): void {
  try {
    window.sessionStorage.setItem(keyOf(jobId), JSON.stringify(choice));
  } catch {
    // Storage refused (private mode quota): the room falls back to the default devices.
  }
}
