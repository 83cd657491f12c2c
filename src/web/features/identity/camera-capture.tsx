import { useEffect, useMemo, useRef, useState } from 'react';
import { identityImageTypes, maxIdentityImageBytes } from '#shared/identity.ts';
import { DropZone } from '#web/components/drop-zone.tsx';
import type { FileRules } from '#web/components/drop-zone-rules.ts';
import { adviseOnFrame, getGuidePercentages, measureFrame, type FrameAdvice, type FrameGuide } from './image-quality.ts';

/** The live check reads a frame this wide (downscaled), this often. */
const analysisWidth = 320;
const analysisEveryMs = 400;

export const identityImageRules: FileRules = {
  mimeTypes: identityImageTypes,
  extensions: ['.jpg', '.jpeg', '.png', '.webp'],
  kind: 'a JPEG, PNG or WebP photo',
  kindPlural: 'JPEG, PNG or WebP photos',
  maxBytes: maxIdentityImageBytes,
  isMultiple: false,
};

function describeCameraError(error: unknown): string {
  const name = typeof error === 'object' && error !== null && 'name' in error ? String((error as { name: unknown }).name) : '';
  const fallback = ' You can choose a photo file instead.';
  if (name === 'NotAllowedError' || name === 'PermissionDeniedError')
    return `Your browser is not letting this page use your camera. Allow the camera in the address bar, then press Use the camera again.${fallback}`;
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return `No camera was found.${fallback}`;
  if (name === 'NotReadableError') return `Another app is using your camera. Close it, then press Use the camera again.${fallback}`;
  if (name === 'SecurityError') return `This page may use the camera only over https.${fallback}`;
  return `Your camera could not be started.${fallback}`;
}

interface CameraCaptureProps {
  guide: FrameGuide;
  /** What is photographed, for the labels: "Front of the card". */
  label: string;
  onCapture: (photo: Blob) => void;
  onCancel: () => void;
}

/**
 * The camera with a framing guide over it and live advice (glare, blur, darkness) read from the
 * frame inside the guide; Take the photo keeps the full-size frame as a JPEG.
 */
export function CameraCapture({ guide, label, onCapture, onCancel }: CameraCaptureProps) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const streamRef = useRef<MediaStream | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [advice, setAdvice] = useState<FrameAdvice | null>(null);
  const isFace = guide === 'face';

  useEffect(() => {
    let isCancelled = false;
    const start = async () => {
      if (!navigator.mediaDevices?.getUserMedia) throw Object.assign(new Error('no camera API'), { name: 'SecurityError' });
      const stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: { ideal: isFace ? 'user' : 'environment' }, width: { ideal: 1920 }, height: { ideal: 1080 } },
        audio: false,
      });
      if (isCancelled) {
        stream.getTracks().forEach((track) => track.stop());
        return;
      }
      streamRef.current = stream;
      const video = videoRef.current;
      if (video) {
        video.srcObject = stream;
        video.onloadedmetadata = () => setSize({ width: video.videoWidth, height: video.videoHeight });
      }
    };
    start().catch((caught: unknown) => {
      if (!isCancelled) setError(describeCameraError(caught));
    });
    return () => {
      isCancelled = true;
      streamRef.current?.getTracks().forEach((track) => track.stop());
      streamRef.current = null;
    };
  }, [isFace]);

  useEffect(() => {
    if (!size) return;
    const canvas = document.createElement('canvas');
    canvas.width = analysisWidth;
    canvas.height = Math.max(1, Math.round((analysisWidth * size.height) / size.width));
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) return;
    let last = '';
    const timer = window.setInterval(() => {
      const video = videoRef.current;
      if (!video || video.readyState < 2) return;
      context.drawImage(video, 0, 0, canvas.width, canvas.height);
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height);
      const next = adviseOnFrame(measureFrame(pixels.data, canvas.width, canvas.height, guide), guide);
      // Only a change is announced: the live region must not repeat itself every 400 ms.
      const key = next.problems.join('|');
      if (key !== last) {
        last = key;
        setAdvice(next);
      }
    }, analysisEveryMs);
    return () => window.clearInterval(timer);
  }, [size, guide]);

  const take = () => {
    const video = videoRef.current;
    if (!video || !size) return;
    const canvas = document.createElement('canvas');
    canvas.width = size.width;
    canvas.height = size.height;
    canvas.getContext('2d')?.drawImage(video, 0, 0, size.width, size.height);
    canvas.toBlob(
      (blob) => {
        if (!blob) {
          setError('The photo could not be taken. Try again, or choose a photo file instead.');
          return;
        }
        streamRef.current?.getTracks().forEach((track) => track.stop());
        onCapture(blob);
      },
      'image/jpeg',
      0.92,
    );
  };

  const box = size ? getGuidePercentages(size.width, size.height, guide) : null;
  const instruction = isFace
    ? 'Look at the camera with your face inside the oval, in good light, without a hat or sunglasses.'
    : 'Lay the document on a dark, plain surface and fill the frame with it, so every corner shows.';
  return (
    <div className="stack camera-capture">
      <p>{instruction}</p>
      {error ? (
        <p className="alert error" role="alert">
          {error}
        </p>
      ) : (
        <div className={`camera-view${isFace ? ' is-mirrored' : ''}`} style={size ? { aspectRatio: `${size.width} / ${size.height}` } : undefined}>
          <video ref={videoRef} autoPlay muted playsInline aria-label={`Camera for the photo: ${label}`} />
          {box ? (
            <div
              className={`camera-guide ${isFace ? 'is-face' : ''} ${advice && !advice.isUsable ? 'has-problem' : advice ? 'is-good' : ''}`}
              style={{ left: `${box.left}%`, top: `${box.top}%`, width: `${box.width}%`, height: `${box.height}%` }}
              aria-hidden="true"
            />
          ) : null}
          {!size ? <p className="camera-starting">Starting the camera…</p> : null}
        </div>
      )}
      <div role="status" aria-live="polite" className="camera-advice">
        {advice ? (
          advice.isUsable ? (
            <p className="is-good">Looks good: hold still and take the photo.</p>
          ) : (
            <ul>
              {advice.problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          )
        ) : null}
      </div>
      <div className="actions">
        {!error ? (
          <button type="button" className="button primary" disabled={!size} onClick={take}>
            Take the photo <span className="visually-hidden">: {label}</span>
          </button>
        ) : null}
        <button type="button" className="button" onClick={onCancel}>
          Close the camera
        </button>
      </div>
    </div>
  );
}

/** A preview of a photo not yet sent, from its Blob. */
function PhotoPreview({ photo, label }: { photo: Blob; label: string }) {
  const url = useMemo(() => URL.createObjectURL(photo), [photo]);
  useEffect(() => () => URL.revokeObjectURL(url), [url]);
  return <img className="photo-preview" src={url} alt={`Your photo: ${label}`} />;
}

interface PhotoSlotProps {
  label: string;
  guide: FrameGuide;
  photo: Blob | null;
  onPhoto: (photo: Blob | null) => void;
  disabled?: boolean;
}

/** One photograph to give: by the camera (with the guide and live advice) or as a file; a preview and Retake once given. */
export function PhotoSlot({ label, guide, photo, onPhoto, disabled = false }: PhotoSlotProps) {
  const [isCameraOpen, setIsCameraOpen] = useState(false);
  return (
    <section className="photo-slot stack" aria-label={label}>
      <h3>{label}</h3>
      {photo ? (
        <>
          <PhotoPreview photo={photo} label={label} />
          <button type="button" className="button" disabled={disabled} onClick={() => onPhoto(null)}>
            Retake <span className="visually-hidden">{label}</span>
          </button>
        </>
      ) : isCameraOpen ? (
        <CameraCapture
          guide={guide}
          label={label}
          onCancel={() => setIsCameraOpen(false)}
          onCapture={(taken) => {
            setIsCameraOpen(false);
            onPhoto(taken);
          }}
        />
      ) : (
        <>
          <button type="button" className="button primary" disabled={disabled} onClick={() => setIsCameraOpen(true)}>
            Use the camera <span className="visually-hidden">for the {label.toLowerCase()}</span>
          </button>
          <DropZone
            label={`Or give a photo file: ${label.toLowerCase()}`}
            buttonLabel="Choose a photo"
            rules={identityImageRules}
            disabled={disabled}
            onFiles={([file]) => file && onPhoto(file)}
          />
        </>
      )}
    </section>
  );
}

/** An upload's progress, said and shown. */
export function UploadProgress({ fraction, what }: { fraction: number | null; what: string }) {
  if (fraction === null) return null;
  const percent = Math.round(fraction * 100);
  return (
    <div className="field" role="status">
      <p className="field-hint">{percent >= 100 ? `${what}: sent. Checking…` : `${what}: ${percent}% sent.`}</p>
      <progress max={1} value={fraction} aria-label={`${what}, progress`} />
    </div>
  );
}
