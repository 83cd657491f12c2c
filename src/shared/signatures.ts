import { z } from 'zod';
import { singleLineTextSchema } from './text.ts';

/** A saved signature or initials image, each kind with its own route. */
export const signatureKinds = ['signature', 'initials'] as const;
export const signatureKindSchema = z.enum(signatureKinds);
export type SignatureKind = z.infer<typeof signatureKindSchema>;

export const signatureMethods = ['draw', 'type', 'upload'] as const;
export const signatureMethodSchema = z.enum(signatureMethods, { message: 'Choose how the image was made: draw, type or upload.' });
export type SignatureMethod = z.infer<typeof signatureMethodSchema>;

export const signatureLimits = {
  /** Decoded PNG bytes. */
  maxBytes: 512 * 1024,
  /** Width and height in pixels. */
  maxDimension: 2000,
} as const;

export const pngDataUrlPrefix = 'data:image/png;base64,';
const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Signature (8) + IHDR length (4) + type (4) + width (4) + height (4). */
const pngHeaderBytes = 24;

export const signatureMessages = {
  notDataUrl: 'The image must be a PNG data URL (data:image/png;base64,…).',
  notBase64: 'The image data is not valid base64.',
  tooLarge: `The image is larger than ${signatureLimits.maxBytes / 1024} KB. Use a smaller image.`,
  notPng: 'The image is not a PNG file.',
  badDimensions: `The image must be between 1 and ${signatureLimits.maxDimension} pixels wide and high.`,
  empty: 'Draw, type or upload something first.',
  consentRequired: 'Agree to sign electronically before adopting your first signature or initials.',
  /** What the person agrees to, shown beside the checkbox and kept in the audit trail as they read it. */
  consentWording:
    'I agree to sign electronically: the signature and initials I adopt here are as binding as my handwritten ones, and I agree to receive the documents I sign as electronic records.',
} as const;

export type PngInspection = { isValid: true; width: number; height: number; sizeBytes: number } | { isValid: false; message: string };

/** Decodes a short base64 string (no Buffer: this module runs in the browser too). */
function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * Checks a PNG data URL without decoding all of it: the prefix, base64 syntax, the decoded size,
 * the 8-byte PNG signature and the IHDR chunk's width and height.
 */
export function inspectPngDataUrl(dataUrl: string): PngInspection {
  if (!dataUrl.startsWith(pngDataUrlPrefix)) return { isValid: false, message: signatureMessages.notDataUrl };
  const payload = dataUrl.slice(pngDataUrlPrefix.length);
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const sizeBytes = Math.floor((payload.length * 3) / 4) - padding;
  // The size first, so an oversized payload is refused before it is scanned.
  if (sizeBytes > signatureLimits.maxBytes) return { isValid: false, message: signatureMessages.tooLarge };
  if (payload.length === 0 || payload.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(payload)) {
    return { isValid: false, message: signatureMessages.notBase64 };
  }
  if (sizeBytes < pngHeaderBytes) return { isValid: false, message: signatureMessages.notPng };
  // 32 base64 characters decode to the first 24 bytes.
  const head = decodeBase64(payload.slice(0, 32));
  const hasSignature = pngSignature.every((byte, index) => head[index] === byte);
  const chunkType = String.fromCharCode(...head.subarray(12, 16));
  if (!hasSignature || chunkType !== 'IHDR') return { isValid: false, message: signatureMessages.notPng };
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  if (width < 1 || height < 1 || width > signatureLimits.maxDimension || height > signatureLimits.maxDimension) {
    return { isValid: false, message: signatureMessages.badDimensions };
  }
  return { isValid: true, width, height, sizeBytes };
}

export const pngDataUrlSchema = z.string({ message: signatureMessages.notDataUrl }).superRefine((value, context) => {
  const inspection = inspectPngDataUrl(value);
  if (!inspection.isValid) context.addIssue({ code: 'custom', message: inspection.message });
});

/** The name typed in type mode, drawn in a script font by the browser: one line, like every name. */
export const typedSignatureTextSchema = singleLineTextSchema({ label: 'The typed name', max: 60 });

export const saveSignatureInputSchema = z.object({
  imageDataUrl: pngDataUrlSchema,
  method: signatureMethodSchema,
  /** Consent to sign electronically: needed the first time (no current signature or initials yet), recorded once. */
  hasAgreedToSignElectronically: z.boolean().optional(),
});
export type SaveSignatureInput = z.infer<typeof saveSignatureInputSchema>;

export const signatureSchema = z.object({
  id: z.string(),
  kind: signatureKindSchema,
  method: signatureMethodSchema,
  /** `/api/signatures/<id>/image`, a PNG. */
  imageUrl: z.string(),
  createdAt: z.string(),
});
export type Signature = z.infer<typeof signatureSchema>;

export function getSignatureImageUrl(id: string): string {
  return `/api/signatures/${id}/image`;
}
