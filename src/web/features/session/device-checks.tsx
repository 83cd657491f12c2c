import { useEffect, useId, useRef } from 'react';
import { useAudioLevel, type MediaCheck } from './use-media-check.ts';
import { describeNetwork, useNetworkCheck } from './use-network-check.ts';

function DevicePicker({
  label,
  devices,
  value,
  onChoose,
  fallback,
}: {
  label: string;
  devices: MediaDeviceInfo[];
  value: string | null;
  onChoose: (id: string) => void;
  fallback: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} disabled={devices.length === 0} onChange={(event) => onChoose(event.target.value)}>
        {devices.length === 0 ? <option value="">{fallback}</option> : null}
        {devices.map((device, index) => (
          <option key={device.deviceId} value={device.deviceId}>
            {device.label || `${label} ${index + 1}`}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Self-view, camera and microphone pickers, a level meter and the sentences for what is missing. */
export function DeviceChecks({ media }: { media: MediaCheck }) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const level = useAudioLevel(media.stream);
  useEffect(() => {
    if (videoRef.current) videoRef.current.srcObject = media.stream;
  }, [media.stream]);
  return (
    <section className="stack device-checks" aria-labelledby="device-checks-title">
      <h2 id="device-checks-title">Camera and microphone</h2>
      <div className="self-view">
        <video ref={videoRef} autoPlay muted playsInline aria-label="Your camera, as others will see you" />
        {!media.hasCamera && !media.isChecking ? <p className="self-view-empty">No picture from your camera.</p> : null}
      </div>
      {media.isChecking ? <p role="status">Starting your camera and microphone…</p> : null}
      {media.problems.map((problem) => (
        <p key={problem} className="alert error" role="alert">
          {problem}
        </p>
      ))}
      <DevicePicker label="Camera" devices={media.cameras} value={media.cameraId} onChoose={media.chooseCamera} fallback="No camera found" />
      <DevicePicker
        label="Microphone"
        devices={media.microphones}
        value={media.microphoneId}
        onChoose={media.chooseMicrophone}
        fallback="No microphone found"
      />
      <div className="field">
        <label htmlFor="microphone-level">Microphone level</label>
        <meter id="microphone-level" className="level-meter" min={0} max={1} low={0.05} high={0.9} optimum={0.5} value={level} />
        <p className="field-hint">Say something: the bar moves when your microphone hears you.</p>
      </div>
      <button type="button" className="button" onClick={media.checkAgain}>
        Check again
      </button>
    </section>
  );
}

/** The server's round trip and whether this browser can prepare video connections. */
export function NetworkChecks() {
  const network = useNetworkCheck();
  return (
    <section className="stack" aria-labelledby="network-checks-title">
      <h2 id="network-checks-title">Connection</h2>
      <ul className="network-lines" aria-live="polite">
        {describeNetwork(network).map((line) => (
          <li key={line.sentence} className={line.isProblem ? 'is-problem' : undefined}>
            {line.sentence}
          </li>
        ))}
      </ul>
      <button type="button" className="button" disabled={network.state === 'checking'} onClick={network.checkAgain}>
        Check the connection again
      </button>
    </section>
  );
}
