import { useId, useState, type FormEvent } from 'react';
import type { CanEnter } from '#shared/jobs.ts';
import type { JoinSessionResult } from '#shared/video.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { loadDeviceChoice, newDeviceGroupId, saveDeviceChoice } from './device-choice.ts';
import { DeviceChecks, NetworkChecks } from './device-checks.tsx';
import { RecordingIndicator } from './recording-indicator.tsx';
import { joinSession, openAndEnterAsNotary } from './api/session-queries.ts';
import { useMediaCheck } from './use-media-check.ts';
import { getEnterLabel, isBackInRoom, notaryEntryNote } from './session-words.ts';

const consentMessage = 'You must agree to the session being recorded to enter it.';
const mediaMessage = 'You need a working camera and microphone to enter: everyone in a notarial session must be seen and heard.';

/** The pre-join screen: devices, connection, what can-enter says, consent, and Enter. */
export function PreJoin({ jobId, canEnter, onEntered }: { jobId: string; canEnter: CanEnter; onEntered: (result: JoinSessionResult) => void }) {
  const saved = loadDeviceChoice(jobId);
  const media = useMediaCheck({ cameraId: saved?.cameraId ?? null, microphoneId: saved?.microphoneId ?? null });
  // Someone admitted to this session agreed to its recording when they first entered (kept with their place).
  const [hasConsent, setHasConsent] = useState(() => isBackInRoom(canEnter.session));
  const [consentError, setConsentError] = useState<string | null>(null);
  const [videoOff, setVideoOff] = useState(saved?.videoOff ?? false);
  const [audioMuted, setAudioMuted] = useState(saved?.audioMuted ?? false);
  const [isEntering, setIsEntering] = useState(false);
  const status = useActionStatus();
  const consentId = useId();
  const isNotary = canEnter.role === 'notary';
  const enterLabel = getEnterLabel(canEnter.session);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    status.setError(null);
    if (!hasConsent) {
      setConsentError(consentMessage);
      document.getElementById(consentId)?.focus();
      return;
    }
    if (!media.hasCamera || !media.hasMicrophone) {
      status.setError(mediaMessage);
      return;
    }
    setIsEntering(true);
    const deviceGroupId = saved?.deviceGroupId ?? newDeviceGroupId();
    await status.run(async () => {
      const result = isNotary ? await openAndEnterAsNotary(jobId, deviceGroupId) : await joinSession(jobId, deviceGroupId);
      saveDeviceChoice(jobId, { deviceGroupId, cameraId: media.cameraId, microphoneId: media.microphoneId, videoOff, audioMuted });
      onEntered(result);
    });
    setIsEntering(false);
  };

  return (
    <form className="prejoin" onSubmit={(event) => void submit(event)} noValidate>
      <DeviceChecks media={media} />
      <div className="stack">
        <NetworkChecks />
        <section className="stack" aria-labelledby="entry-title">
          <h2 id="entry-title">Entering</h2>
          {canEnter.reasons.length > 0 ? (
            <div className="alert info">
              <p className="strong">You cannot enter yet:</p>
              <ul>
                {canEnter.reasons.map((reason) => (
                  <li key={reason}>{reason}</li>
                ))}
              </ul>
              <p>This page checks again by itself every few seconds.</p>
            </div>
          ) : null}
          {canEnter.notices.map((notice) => (
            <p key={notice} className="notice">
              {notice}
            </p>
          ))}
          {canEnter.role === 'observer' ? <p className="notice">You enter as an observer: you see and hear the session, and you do not sign.</p> : null}
          {isNotary ? <p className="notice">{notaryEntryNote}</p> : null}
          <RecordingIndicator jobId={jobId} />
          <label className="checkbox">
            <input type="checkbox" checked={videoOff} onChange={(event) => setVideoOff(event.target.checked)} />
            {isNotary
              ? 'Enter with my camera off (turn it on before you start the notarization: everyone must see you)'
              : 'Enter with my camera off (the notary may ask you to turn it on)'}
          </label>
          <label className="checkbox">
            <input type="checkbox" checked={audioMuted} onChange={(event) => setAudioMuted(event.target.checked)} />
            Enter muted
          </label>
          <div className="field">
            <label className="checkbox consent">
              <input
                id={consentId}
                type="checkbox"
                checked={hasConsent}
                aria-invalid={consentError ? true : undefined}
                aria-describedby={consentError ? `${consentId}-error` : undefined}
                onChange={(event) => {
                  setHasConsent(event.target.checked);
                  if (event.target.checked) setConsentError(null);
                }}
              />
              I agree that this session is recorded, sound and video, and kept with the record of the notarization.
            </label>
            {consentError ? (
              <p className="field-error" id={`${consentId}-error`} role="alert">
                {consentError}
              </p>
            ) : null}
          </div>
          <FormAlert message={status.error} />
          {/* A click while the camera and microphone are still being checked would only be refused: wait for the check. */}
          <button type="submit" className="button primary" disabled={!canEnter.canEnter || isEntering || media.isChecking}>
            {isEntering ? 'Entering…' : media.isChecking ? 'Checking your camera and microphone…' : enterLabel}
          </button>
        </section>
      </div>
    </form>
  );
}
