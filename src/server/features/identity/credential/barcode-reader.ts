import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { prepareZXingModule, readBarcodes, type ZXingFullModule } from 'zxing-wasm/full';
import { maxImagePixels } from './image-limits.ts';

/**
 * PDF417 reading with zxing-wasm. The wasm binary comes from the package in node_modules: left to
 * itself zxing-wasm would download it from a CDN.
 */

const require = createRequire(import.meta.url);
let zxingModule: Promise<ZXingFullModule> | null = null;

/** Loads zxing's wasm from node_modules once; every zxing call (reading or writing) must come after it. */
export function loadBarcodeModule(): Promise<ZXingFullModule> {
  if (!zxingModule) {
    const file = readFileSync(require.resolve('zxing-wasm/full/zxing_full.wasm'));
    const wasmBinary = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
    zxingModule = prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
    zxingModule.catch(() => {
      zxingModule = null;
    });
  }
  return zxingModule;
}

export interface DecodedImage {
  data: Buffer;
  width: number;
  height: number;
}

/** Largest side an image is scaled down to before reading: phone photos are far bigger than a barcode needs. */
const maxSide = 2000;

/**
 * The image as upright RGBA pixels (EXIF orientation applied, transparency on white), or null
 * when the bytes are not an image sharp can decode.
 */
export async function decodeImage(bytes: Buffer): Promise<DecodedImage | null> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: maxImagePixels })
      .autoOrient()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4 || info.width < 1 || info.height < 1) return null;
    return { data, width: info.width, height: info.height };
  } catch {
    return null;
  }
}

/** zxing misses PDF417 tilted more than 3-4 degrees, so a tilted photo is turned back in steps. */
const angles = [0, -2.5, 2.5, -5, 5, -7.5, 7.5, -10, 10];

async function rotate(image: DecodedImage, angle: number): Promise<DecodedImage> {
  if (angle === 0) return image;
  const { data, info } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .rotate(angle, { background: '#ffffff' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * The text of the PDF417 in the image, trying each angle until `isWanted` accepts a decoded text.
 * A tilted symbol sometimes decodes into nonsense at the wrong angle, so a text `isWanted`
 * refuses is kept only as a last resort. Null when no angle decodes anything.
 */
export async function readPdf417(image: DecodedImage, isWanted: (text: string) => boolean): Promise<string | null> {
  await loadBarcodeModule();
  let fallback: string | null = null;
  for (const angle of angles) {
    const turned = await rotate(image, angle);
    const pixels = {
      data: new Uint8ClampedArray(turned.data.buffer, turned.data.byteOffset, turned.data.byteLength),
      width: turned.width,
      height: turned.height,
      colorSpace: 'srgb',
    } as ImageData;
    const results = await readBarcodes(pixels, { formats: ['PDF417'], textMode: 'Plain', tryHarder: true, maxNumberOfSymbols: 4 });
    for (const result of results) {
      if (!result.isValid || !result.text) continue;
      if (isWanted(result.text)) return result.text;
      fallback ??= result.text;
    }
  }
  return fallback;
}
