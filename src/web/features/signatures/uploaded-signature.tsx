import { useState } from 'react';
import { signatureLimits, type SignatureKind } from '#shared/signatures.ts';
import { DropZone } from '#web/components/drop-zone.tsx';
import type { FileRules } from '#web/components/drop-zone-rules.ts';
import { createCanvas, getContext, isTransparentOrWhite, scaleWithin, toSignaturePng, trimCanvas } from './canvas-image.ts';

/** A photo or scan: the image is trimmed and scaled down before it is saved, so a large file is fine. */
const imageRules: FileRules = {
  mimeTypes: ['image/png', 'image/jpeg'],
  extensions: ['.png', '.jpg', '.jpeg'],
  kind: 'a PNG or JPEG image',
  kindPlural: 'PNG or JPEG images',
  maxBytes: 15 * 1024 * 1024,
  isMultiple: false,
};

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
  const noun = kind === 'signature' ? 'signature' : 'initials';
  const [isConverting, setIsConverting] = useState(false);

  const handleFile = async (file: File) => {
    onChange(null);
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
    <DropZone
      label={kind === 'signature' ? 'Signature image' : 'Initials image'}
      buttonLabel="Choose an image"
      rules={imageRules}
      disabled={isConverting}
      hint={`A photo or scan of your ${noun} on a light background. The margin is trimmed.`}
      onFiles={([file]) => file && void handleFile(file)}
    >
      {isConverting ? <p role="status">Preparing the image…</p> : null}
    </DropZone>
  );
}
