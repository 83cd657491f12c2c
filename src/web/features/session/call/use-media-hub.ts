import { useEffect, useState, useSyncExternalStore } from 'react';
import { useNavigate } from 'react-router';
import type { VideoRole } from '#shared/video.ts';
import { saveDeviceChoice, type DeviceChoice } from '../device-choice.ts';
import { completePath } from '../api/session-queries.ts';
import { MediaHub } from './media-hub.ts';

export interface MediaHubInput {
  jobId: string;
  sessionId: string;
  role: VideoRole;
  participantId: string;
  choice: DeviceChoice;
}

/**
 * The live call of the session room: one MediaHub (media-hub.ts) for as long as the room is
 * mounted. The devices the person switches to are kept for a reload; the end of the session sends
 * everyone to /session/complete.
 */
export function useMediaHub({ jobId, sessionId, role, participantId, choice }: MediaHubInput) {
  const navigate = useNavigate();
  // One hub per mounted room: the page keys the room by session, person and role.
  const [hub] = useState(
    () =>
      new MediaHub({
        sessionId,
        role,
        participantId,
        deviceGroupId: choice.deviceGroupId,
        cameraId: choice.cameraId,
        microphoneId: choice.microphoneId,
        audioMuted: choice.audioMuted,
        videoOff: choice.videoOff,
        onDevicesChanged: (devices) => saveDeviceChoice(jobId, { deviceGroupId: choice.deviceGroupId, ...devices }),
      }),
  );

  useEffect(() => {
    void hub.start();
    return () => hub.stop();
  }, [hub]);

  const snapshot = useSyncExternalStore(hub.subscribe, hub.getSnapshot);
  useEffect(() => {
    if (snapshot.hasEnded) navigate(completePath(jobId), { replace: true });
  }, [snapshot.hasEnded, navigate, jobId]);
  return {
    ...snapshot,
    setAudioMuted: (isMuted: boolean) => hub.setAudioMuted(isMuted),
    setVideoOff: (isOff: boolean) => void hub.setVideoOff(isOff),
    switchDevice: (kind: 'audio' | 'video', deviceId: string) => void hub.switchDevice(kind, deviceId),
  };
}

export type MediaHubState = ReturnType<typeof useMediaHub>;
