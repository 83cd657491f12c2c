/**
 * Live checks of a camera frame before an ID photograph is taken: glare (a share of near-white
 * pixels inside the framing guide), blur (the variance of a Laplacian: a sharp picture has strong
 * edges, a blurred one almost none) and darkness. Pure functions on RGBA pixels, as a canvas's
 * getImageData gives them, so they run the same in a test as in the browser.
 */

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the framing guide outlines: an ID card (ISO/IEC 7810 ID-1), a passport's photo page, or a face. */
export type FrameGuide = 'card' | 'passport' | 'face';

/** Width over height of each guide. */
const guideAspect: Record<FrameGuide, number> = { card: 85.6 / 54, passport: 125 / 88, face: 3 / 4 };
/** The share of the frame's width (or height, whichever binds first) the guide takes. */
const guideFill: Record<FrameGuide, number> = { card: 0.8, passport: 0.8, face: 0.55 };

/** The guide's rectangle in a frame of this size, centred: the overlay draws it, the checks read inside it. */
export function getGuideRegion(frameWidth: number, frameHeight: number, guide: FrameGuide): Region {
  const aspect = guideAspect[guide];
  let width = frameWidth * guideFill[guide];
  let height = width / aspect;
  if (height > frameHeight * guideFill[guide]) {
    height = frameHeight * guideFill[guide];
    width = height * aspect;
  }
  const x = Math.round((frameWidth - width) / 2);
  const y = Math.round((frameHeight - height) / 2);
  return { x, y, width: Math.round(width), height: Math.round(height) };
}

/** The guide's rectangle as percentages of the frame, for a CSS overlay. */
export function getGuidePercentages(frameWidth: number, frameHeight: number, guide: FrameGuide) {
  const region = getGuideRegion(frameWidth, frameHeight, guide);
  return {
    left: (region.x / frameWidth) * 100,
    top: (region.y / frameHeight) * 100,
    width: (region.width / frameWidth) * 100,
    height: (region.height / frameHeight) * 100,
  };
}

/** Clamps a region to the frame, so a guide larger than a tiny frame still reads valid pixels. */
function clampRegion(region: Region, width: number, height: number): Region {
  const x = Math.max(0, Math.min(width, Math.floor(region.x)));
  const y = Math.max(0, Math.min(height, Math.floor(region.y)));
  return { x, y, width: Math.max(0, Math.min(width - x, Math.floor(region.width))), height: Math.max(0, Math.min(height - y, Math.floor(region.height))) };
}

/** A value of a pixel buffer (0 past its end). */
const at = (values: ArrayLike<number>, index: number): number => values[index] ?? 0;

/** Luma (ITU-R BT.601) of each pixel of an RGBA buffer: 0 (black) to 255 (white). */
export function toGrayscale(rgba: ArrayLike<number>, width: number, height: number): Float32Array {
  const gray = new Float32Array(width * height);
  for (let index = 0; index < width * height; index += 1) {
    const offset = index * 4;
    gray[index] = 0.299 * at(rgba, offset) + 0.587 * at(rgba, offset + 1) + 0.114 * at(rgba, offset + 2);
  }
  return gray;
}

/** A pixel counts as glare when its darkest channel is at least this bright (near-white, whatever its tint). */
export const glarePixelThreshold = 235;

/** The share (0 to 1) of pixels in the region that are near-white: light reflected off the card's surface. */
export function measureGlare(rgba: ArrayLike<number>, width: number, height: number, region: Region, threshold = glarePixelThreshold): number {
  const area = clampRegion(region, width, height);
  const total = area.width * area.height;
  if (total === 0) return 0;
  let bright = 0;
  for (let y = area.y; y < area.y + area.height; y += 1) {
    for (let x = area.x; x < area.x + area.width; x += 1) {
      const offset = (y * width + x) * 4;
      if (Math.min(at(rgba, offset), at(rgba, offset + 1), at(rgba, offset + 2)) >= threshold) bright += 1;
    }
  }
  return bright / total;
}

/**
 * The variance of the 4-neighbour Laplacian of the grayscale picture inside the region: high for
 * a sharp picture (edges of text and photo), near zero for a blurred or featureless one.
 */
export function measureSharpness(gray: ArrayLike<number>, width: number, height: number, region: Region): number {
  const area = clampRegion(region, width, height);
  // The Laplacian needs a neighbour on every side: the region's border pixels are skipped.
  const startX = Math.max(1, area.x);
  const startY = Math.max(1, area.y);
  const endX = Math.min(width - 1, area.x + area.width);
  const endY = Math.min(height - 1, area.y + area.height);
  let count = 0;
  let sum = 0;
  let sumOfSquares = 0;
  for (let y = startY; y < endY; y += 1) {
    for (let x = startX; x < endX; x += 1) {
      const index = y * width + x;
      const laplacian = at(gray, index - 1) + at(gray, index + 1) + at(gray, index - width) + at(gray, index + width) - 4 * at(gray, index);
      sum += laplacian;
      sumOfSquares += laplacian * laplacian;
      count += 1;
    }
  }
  if (count === 0) return 0;
  const mean = sum / count;
  return sumOfSquares / count - mean * mean;
}

/** The mean brightness (0 to 255) inside the region. */
export function measureBrightness(gray: ArrayLike<number>, width: number, height: number, region: Region): number {
  const area = clampRegion(region, width, height);
  let sum = 0;
  for (let y = area.y; y < area.y + area.height; y += 1) {
    for (let x = area.x; x < area.x + area.width; x += 1) sum += at(gray, y * width + x);
  }
  const total = area.width * area.height;
  return total === 0 ? 0 : sum / total;
}

export interface FrameMeasures {
  glare: number;
  sharpness: number;
  brightness: number;
}

/**
 * Limits of a usable frame, measured on a frame about 320 pixels wide (the live check downscales
 * to that size): more than 3% near-white pixels on the card is a reflection; a Laplacian variance
 * under 60 is a blurred picture; a mean brightness under 60 is too dark to read.
 */
export const frameLimits = { maxGlare: 0.03, minSharpness: 60, minBrightness: 60 } as const;

/** Everything measured on a frame, inside the guide. */
export function measureFrame(rgba: ArrayLike<number>, width: number, height: number, guide: FrameGuide): FrameMeasures {
  const region = getGuideRegion(width, height, guide);
  const gray = toGrayscale(rgba, width, height);
  return {
    // A face has no reflective surface worth checking; bright skin would read as glare.
    glare: guide === 'face' ? 0 : measureGlare(rgba, width, height, region),
    sharpness: measureSharpness(gray, width, height, region),
    brightness: measureBrightness(gray, width, height, region),
  };
}

export interface FrameAdvice {
  isUsable: boolean;
  /** What to change, in sentences; empty when the frame looks usable. */
  problems: string[];
}

/** What to tell the person about the frame now. */
export function adviseOnFrame(measures: FrameMeasures, guide: FrameGuide, limits: typeof frameLimits = frameLimits): FrameAdvice {
  const thing = guide === 'face' ? 'your face' : guide === 'passport' ? 'the passport page' : 'the card';
  const problems: string[] = [];
  if (measures.brightness < limits.minBrightness) problems.push('The picture is too dark: move to a brighter place or turn on a light.');
  if (measures.glare > limits.maxGlare) problems.push(`There is glare on ${thing}: tilt it away from the light, or move away from a lamp or window.`);
  if (measures.sharpness < limits.minSharpness)
    problems.push(`The picture is blurred: hold still, and move ${guide === 'face' ? 'the camera' : thing} until the text is sharp.`);
  return { isUsable: problems.length === 0, problems };
}
