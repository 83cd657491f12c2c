import { useCallback, useEffect, useState } from 'react';
import { describeMediaError, type MediaKind } from './media-errors.ts';

export interface MediaCheck {
  stream: MediaStream | null;
  cameras: MediaDeviceInfo[];
  microphones: MediaDeviceInfo[];
  cameraId: string | null;
  microphoneId: string | null;
  chooseCamera: (deviceId: string) => void;
  chooseMicrophone: (deviceId: string) => void;
  /** Sentences for what is missing or refused; empty when camera and microphone both run. */
  problems: string[];
  hasCamera: boolean;
  hasMicrophone: boolean;
  isChecking: boolean;
  checkAgain: () => void;
}

const constraintOf = (deviceId: string | null): MediaTrackConstraints | boolean => (deviceId ? { deviceId: { exact: deviceId } } : true);
const nameOf = (error: unknown) => (typeof error === 'object' && error !== null && 'name' in error ? String((error as { name: unknown }).name) : '');

/**
 * Asks for the camera and microphone together; when that fails for a reason other than a refusal,
 * asks for each alone, so the person learns which one is missing or held by another app.
 */
async function acquire(cameraId: string | null, microphoneId: string | null): Promise<{ stream: MediaStream | null; problems: string[] }> {
  if (!navigator.mediaDevices?.getUserMedia) return { stream: null, problems: [describeMediaError({ name: 'SecurityError' }, 'both')] };
  try {
    return { stream: await navigator.mediaDevices.getUserMedia({ video: constraintOf(cameraId), audio: constraintOf(microphoneId) }), problems: [] };
  } catch (error) {
    if (['NotAllowedError', 'PermissionDeniedError', 'SecurityError'].includes(nameOf(error)))
      return { stream: null, problems: [describeMediaError(error, 'both')] };
    // A device chosen last time and unplugged since: the default ones instead.
    if (nameOf(error) === 'OverconstrainedError' && (cameraId || microphoneId)) return acquire(null, null);
  }
  const tracks: MediaStreamTrack[] = [];
  const problems: string[] = [];
  const kinds: Array<[Exclude<MediaKind, 'both'>, MediaStreamConstraints]> = [
    ['camera', { video: constraintOf(cameraId) }],
    ['microphone', { audio: constraintOf(microphoneId) }],
  ];
  for (const [kind, constraints] of kinds) {
    try {
      tracks.push(...(await navigator.mediaDevices.getUserMedia(constraints)).getTracks());
    } catch (error) {
      problems.push(describeMediaError(error, kind));
    }
  }
  return { stream: tracks.length > 0 ? new MediaStream(tracks) : null, problems };
}

/** The pre-join check of camera and microphone: the devices there are, the chosen ones running, and what is wrong. */
export function useMediaCheck(initial: { cameraId: string | null; microphoneId: string | null } = { cameraId: null, microphoneId: null }): MediaCheck {
  const [cameraId, setCameraId] = useState(initial.cameraId);
  const [microphoneId, setMicrophoneId] = useState(initial.microphoneId);
  const [attempt, setAttempt] = useState(0);
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [isChecking, setIsChecking] = useState(true);
  const [devices, setDevices] = useState<MediaDeviceInfo[]>([]);

  const listDevices = useCallback(async () => {
    if (!navigator.mediaDevices?.enumerateDevices) return;
    setDevices(await navigator.mediaDevices.enumerateDevices());
  }, []);

  useEffect(() => {
    let isCancelled = false;
    let acquired: MediaStream | null = null;
    void acquire(cameraId, microphoneId).then(async (result) => {
      acquired = result.stream;
      if (isCancelled) {
        acquired?.getTracks().forEach((track) => track.stop());
        return;
      }
      setStream(result.stream);
      setProblems(result.problems);
      setIsChecking(false);
      // Labels are given only once permission is granted: list the devices after asking.
      await listDevices();
      const settingOf = (kind: 'video' | 'audio') =>
        result.stream
          ?.getTracks()
          .find((track) => track.kind === kind)
          ?.getSettings().deviceId ?? null;
      if (!cameraId) setCameraId(settingOf('video'));
      if (!microphoneId) setMicrophoneId(settingOf('audio'));
    });
    return () => {
      isCancelled = true;
      acquired?.getTracks().forEach((track) => track.stop());
    };
    // A chosen device found after the first check (cameraId set from the track) must not ask again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [attempt]);

  useEffect(() => {
    const mediaDevices = navigator.mediaDevices;
    if (!mediaDevices) return;
    const onChange = () => void listDevices();
    mediaDevices.addEventListener('devicechange', onChange);
    return () => mediaDevices.removeEventListener('devicechange', onChange);
  }, [listDevices]);

  const checkAgain = useCallback(() => {
    setIsChecking(true);
    setAttempt((value) => value + 1);
  }, []);
  const chooseCamera = useCallback(
    (deviceId: string) => {
      setCameraId(deviceId);
      checkAgain();
    },
    [checkAgain],
  );
  const chooseMicrophone = useCallback(
    (deviceId: string) => {
      setMicrophoneId(deviceId);
      checkAgain();
    },
    [checkAgain],
  );

  return {
    stream,
    cameras: devices.filter((device) => device.kind === 'videoinput' && device.deviceId),
    microphones: devices.filter((device) => device.kind === 'audioinput' && device.deviceId),
    cameraId,
    microphoneId,
    chooseCamera,
    chooseMicrophone,
    problems,
    hasCamera: Boolean(stream?.getVideoTracks().length),
    hasMicrophone: Boolean(stream?.getAudioTracks().length),
    isChecking,
    checkAgain,
  };
}

/** The microphone's loudness now, 0 to 1, read ten times a second from an AudioContext analyser. */
export function useAudioLevel(stream: MediaStream | null): number {
  const [level, setLevel] = useState(0);
  const hasAudio = Boolean(stream && stream.getAudioTracks().length > 0 && typeof AudioContext !== 'undefined');
  useEffect(() => {
    if (!stream || !hasAudio) return;
    const context = new AudioContext();
    void context.resume();
    const analyser = context.createAnalyser();
    analyser.fftSize = 1024;
    context.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    const timer = window.setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += sample * sample;
      // Speech sits around an RMS of 0.05 to 0.2; scaled so normal speech fills most of the meter.
      setLevel(Math.min(1, Math.sqrt(sum / samples.length) * 5));
    }, 100);
    return () => {
      window.clearInterval(timer);
      void context.close();
    };
  }, [stream, hasAudio]);
  return hasAudio ? level : 0;
}
