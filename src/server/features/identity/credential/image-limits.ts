import sharp from 'sharp';

/**
 * The most pixels an ID photo may have: 50 megapixels holds a 48-megapixel phone photo (8000 × 6000).
 * A larger image is refused from its header, before it is decoded: a small compressed file can
 * describe an image whose decoding takes seconds and gigabytes.
 */
export const maxImagePixels = 50_000_000;

/** The image's width and height read from its header alone, or null when sharp does not recognise it. */
export async function readImageSize(bytes: Buffer): Promise<{ width: number; height: number } | null> {
  try {
    const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}
