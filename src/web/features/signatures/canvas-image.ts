import { inspectPngDataUrl, signatureLimits, signatureMessages } from '#shared/signatures.ts';

/** Ink for drawn and typed signatures: the brand's dark blue reads as pen ink. */
export const inkColor = '#00335b';

export type IsBlankPixel = (red: number, green: number, blue: number, alpha: number) => boolean;

/** Drawn and typed images have a transparent background. */
export const isTransparent: IsBlankPixel = (_red, _green, _blue, alpha) => alpha < 8;
/** Uploaded photos and scans usually have white paper around the ink. */
export const isTransparentOrWhite: IsBlankPixel = (red, green, blue, alpha) => alpha < 8 || (red > 235 && green > 235 && blue > 235);

export function createCanvas(width: number, height: number): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width));
  canvas.height = Math.max(1, Math.round(height));
  return canvas;
}

export function getContext(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('This browser cannot draw on a canvas.');
  return context;
}

/** A copy cropped to what is not blank, with a margin; null when everything is blank. */
export function trimCanvas(source: HTMLCanvasElement, isBlank: IsBlankPixel, padding = 8): HTMLCanvasElement | null {
  const { width, height } = source;
  const data = getContext(source).getImageData(0, 0, width, height).data;
  let top = height;
  let left = width;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const offset = (y * width + x) * 4;
      if (isBlank(data[offset] ?? 0, data[offset + 1] ?? 0, data[offset + 2] ?? 0, data[offset + 3] ?? 0)) continue;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      if (y > bottom) bottom = y;
    }
  }
  if (right < 0) return null;
  const cropLeft = Math.max(0, left - padding);
  const cropTop = Math.max(0, top - padding);
  const cropWidth = Math.min(width, right + padding + 1) - cropLeft;
  const cropHeight = Math.min(height, bottom + padding + 1) - cropTop;
  const target = createCanvas(cropWidth, cropHeight);
  getContext(target).drawImage(source, cropLeft, cropTop, cropWidth, cropHeight, 0, 0, cropWidth, cropHeight);
  return target;
}

/** A copy scaled down (never up) so neither side exceeds maxDimension. */
export function scaleWithin(source: HTMLCanvasElement, maxDimension: number): HTMLCanvasElement {
  const scale = Math.min(1, maxDimension / Math.max(source.width, source.height));
  if (scale === 1) return source;
  const target = createCanvas(source.width * scale, source.height * scale);
  const context = getContext(target);
  context.imageSmoothingQuality = 'high';
  context.drawImage(source, 0, 0, target.width, target.height);
  return target;
}

/**
 * The canvas as a PNG data URL the server accepts: at most signatureLimits.maxDimension pixels a
 * side and signatureLimits.maxBytes bytes (a detailed photo is scaled down until it fits).
 */
export function toSignaturePng(source: HTMLCanvasElement): string {
  let canvas = scaleWithin(source, signatureLimits.maxDimension);
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const dataUrl = canvas.toDataURL('image/png');
    if (inspectPngDataUrl(dataUrl).isValid) return dataUrl;
    canvas = scaleWithin(canvas, Math.floor(Math.max(canvas.width, canvas.height) * 0.75));
  }
  throw new Error(signatureMessages.tooLarge);
}
