import { useId, useState } from 'react';
import { signatureLimits, type SignatureKind } from '#shared/signatures.ts';
import { createCanvas, getContext, isTransparentOrWhite, scaleWithin, toSignaturePng, trimCanvas } from './canvas-image.ts';

const acceptedTypes = ['image/png', 'image/jpeg'];
const maxFileBytes = 15 * 1024 * 1024;

/** Decodes an image file, trims the blank margin, scales it within the limit and exports a PNG. */
async function convertUpload(file: File): Promise<string> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new Error('That file could not be read as an image. Choose a PNG or JPEG file.');
  }
  // Scale very large photos first so trimming does not scan tens of millions of pixels.
  const scale = Math.min(1, (signatureLimits.maxDimension * 2) / Math.max(bitmap.width, bitmap.height));
  const canvas = createCanvas(bitmap.width * scale, bitmap.height * scale);
  getContext(canvas).drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const trimmed = trimCanvas(canvas, isTransparentOrWhite, 8);
  if (!trimmed) throw new Error('The image looks blank. Choose an image of your signature on a light background.');
  return toSignaturePng(scaleWithin(trimmed, signatureLimits.maxDimension));
}

interface UploadedSignatureProps {
  kind: SignatureKind;
  onChange: (dataUrl: string | null) => void;
  onError: (message: string) => void;
}

/** Upload mode: a PNG or JPEG of a signature on paper, trimmed and converted to PNG. */
export function UploadedSignature({ kind, onChange, onError }: UploadedSignatureProps) {
  const id = useId();
  const noun = kind === 'signature' ? 'signature' : 'initials';
  const [isConverting, setIsConverting] = useState(false);

  const handleFile = async (file: File | undefined) => {
    onChange(null);
    if (!file) return;
    if (!acceptedTypes.includes(file.type)) return onError('Choose a PNG or JPEG image.');
    if (file.size > maxFileBytes) return onError(`Choose an image under ${maxFileBytes / 1024 / 1024} MB.`);
    setIsConverting(true);
    try {
      onChange(await convertUpload(file));
    } catch (caught) {
      onError(caught instanceof Error ? caught.message : 'That image could not be used.');
    } finally {
      setIsConverting(false);
    }
  };

  return (
    <div className="field">
      <label htmlFor={id}>{kind === 'signature' ? 'Signature image' : 'Initials image'}</label>
      <input id={id} type="file" accept={acceptedTypes.join(',')} aria-describedby={`${id}-hint`} onChange={(event) => void handleFile(event.target.files?.[0])} />
      <p className="field-hint" id={`${id}-hint`}>
        A PNG or JPEG photo or scan of your {noun} on a light background. The margin is trimmed.
      </p>
      {isConverting ? <p role="status">Preparing the image…</p> : null}
    </div>
  );
}
