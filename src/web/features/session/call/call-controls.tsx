import { useEffect, useState } from 'react';
import { qualitySentences, type NetworkQuality } from './network-quality.ts';

const qualityNames: Record<NetworkQuality, string> = { unknown: 'Checking', good: 'Good', fair: 'Fair', poor: 'Poor' };

/** The connection level as bars and a word; the sentence is its accessible description. */
export function NetworkIndicator({ quality }: { quality: NetworkQuality }) {
  const bars = { unknown: 0, poor: 1, fair: 2, good: 3 }[quality];
  return (
    <p className={`network-indicator ${quality}`} title={qualitySentences[quality]}>
      <span className="bars" aria-hidden="true">
        {[1, 2, 3].map((bar) => (
          <span key={bar} className={bar <= bars ? 'on' : ''} />
        ))}
      </span>
      <span>Network: {qualityNames[quality]}</span>
      <span className="visually-hidden">. {qualitySentences[quality]}</span>
    </p>
  );
}

function useDevices(isOpen: boolean) {
  const [devices, setDevices] = useState<MediaDeviceInfo[]>([]);
  useEffect(() => {
    if (!isOpen || !navigator.mediaDevices?.enumerateDevices) return;
    let isCurrent = true;
    const read = () => void navigator.mediaDevices.enumerateDevices().then((found) => isCurrent && setDevices(found));
    read();
    navigator.mediaDevices.addEventListener('devicechange', read);
    return () => {
      isCurrent = false;
      navigator.mediaDevices.removeEventListener('devicechange', read);
    };
  }, [isOpen]);
  return devices;
}

export interface CallControlsProps {
  audioMuted: boolean;
  videoOff: boolean;
  cameraId: string | null;
  microphoneId: string | null;
  quality: NetworkQuality;
  onAudioMuted(isMuted: boolean): void;
  onVideoOff(isOff: boolean): void;
  onSwitch(kind: 'audio' | 'video', deviceId: string): void;
}

/** Mute, camera off and the device menu, each a 44 px target named for what it does now. */
export function CallControls(props: CallControlsProps) {
  const [isMenuOpen, setIsMenuOpen] = useState(false);
  const devices = useDevices(isMenuOpen);
  const cameras = devices.filter((device) => device.kind === 'videoinput');
  const microphones = devices.filter((device) => device.kind === 'audioinput');
  const select = (kind: 'audio' | 'video', list: MediaDeviceInfo[], current: string | null, label: string) => (
    <label className="field">
      <span>{label}</span>
      <select
        aria-label={label}
        value={current ?? list[0]?.deviceId ?? ''}
        onChange={(event) => props.onSwitch(kind, event.target.value)}
        disabled={list.length === 0}
      >
        {list.length === 0 ? <option value="">None found</option> : null}
        {list.map((device, index) => (
          <option key={device.deviceId || index} value={device.deviceId}>
            {device.label || `${label} ${index + 1}`}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="call-controls">
      <div className="call-buttons" role="group" aria-label="Your camera and microphone">
        <button
          type="button"
          className={`button call-button${props.audioMuted ? ' off' : ''}`}
          aria-pressed={props.audioMuted}
          onClick={() => props.onAudioMuted(!props.audioMuted)}
        >
          {props.audioMuted ? 'Unmute' : 'Mute'}
        </button>
        <button
          type="button"
          className={`button call-button${props.videoOff ? ' off' : ''}`}
          aria-pressed={props.videoOff}
          onClick={() => props.onVideoOff(!props.videoOff)}
        >
          {props.videoOff ? 'Turn camera on' : 'Turn camera off'}
        </button>
        <button
          type="button"
          className="button call-button"
          aria-expanded={isMenuOpen}
          aria-controls="call-devices"
          onClick={() => setIsMenuOpen((value) => !value)}
        >
          Devices
        </button>
        <NetworkIndicator quality={props.quality} />
      </div>
      {isMenuOpen ? (
        <div id="call-devices" className="call-devices stack">
          {select('video', cameras, props.cameraId, 'Camera')}
          {select('audio', microphones, props.microphoneId, 'Microphone')}
        </div>
      ) : null}
    </div>
  );
}
