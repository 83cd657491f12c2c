import { describe, expect, it } from 'vitest';
import { adviseOnFrame, frameLimits, getGuideRegion, measureFrame, measureGlare, measureSharpness, toGrayscale } from './image-quality.ts';

/** An RGBA frame painted pixel by pixel. */
function paint(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): Uint8ClampedArray {
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const [r, g, b] = colour(x, y);
      rgba.set([r, g, b, 255], (y * width + x) * 4);
    }
  }
  return rgba;
}

const grey = (value: number): [number, number, number] => [value, value, value];

describe('getGuideRegion', () => {
  it('centres an ID-card shaped guide that takes most of a landscape frame', () => {
    const region = getGuideRegion(320, 240, 'card');
    expect(region.width).toBe(256);
    expect(region.height).toBe(Math.round(256 / (85.6 / 54)));
    expect(region.x).toBe(32);
    expect(Math.abs(region.y + region.height / 2 - 120)).toBeLessThanOrEqual(1);
  });

  it('fits the guide inside a portrait phone frame', () => {
    const region = getGuideRegion(240, 320, 'card');
    expect(region.x).toBeGreaterThanOrEqual(0);
    expect(region.x + region.width).toBeLessThanOrEqual(240);
    expect(region.y + region.height).toBeLessThanOrEqual(320);
  });

  it('is limited by the height when the frame is very wide', () => {
    const region = getGuideRegion(1000, 100, 'passport');
    expect(region.height).toBe(80);
    expect(region.width).toBe(Math.round(80 * (125 / 88)));
  });
});

describe('measureGlare', () => {
  it('counts the share of near-white pixels inside the region', () => {
    // A 100 x 100 frame with a white 20 x 20 square in a region of 50 x 50: 400 of 2,500 pixels.
    const rgba = paint(100, 100, (x, y) => (x >= 30 && x < 50 && y >= 30 && y < 50 ? grey(255) : grey(120)));
    expect(measureGlare(rgba, 100, 100, { x: 25, y: 25, width: 50, height: 50 })).toBeCloseTo(400 / 2500, 5);
  });

  it('ignores white outside the card area', () => {
    const rgba = paint(100, 100, (x) => (x < 20 ? grey(255) : grey(120)));
    expect(measureGlare(rgba, 100, 100, { x: 25, y: 25, width: 50, height: 50 })).toBe(0);
  });

  it('does not count a bright but coloured pixel as glare', () => {
    const rgba = paint(10, 10, () => [255, 250, 120]);
    expect(measureGlare(rgba, 10, 10, { x: 0, y: 0, width: 10, height: 10 })).toBe(0);
  });
});

describe('measureSharpness', () => {
  it('is zero for a flat picture and large for a sharp checkerboard', () => {
    const flat = toGrayscale(
      paint(40, 40, () => grey(128)),
      40,
      40,
    );
    const checker = toGrayscale(
      paint(40, 40, (x, y) => grey((x + y) % 2 === 0 ? 0 : 255)),
      40,
      40,
    );
    const region = { x: 0, y: 0, width: 40, height: 40 };
    expect(measureSharpness(flat, 40, 40, region)).toBe(0);
    expect(measureSharpness(checker, 40, 40, region)).toBeGreaterThan(10_000);
  });

  it('falls when the same edges are blurred', () => {
    // A hard edge, and the same edge as a smooth ramp over 20 pixels.
    const hard = toGrayscale(
      paint(60, 20, (x) => grey(x < 30 ? 20 : 230)),
      60,
      20,
    );
    const soft = toGrayscale(
      paint(60, 20, (x) => grey(Math.max(20, Math.min(230, 20 + (x - 20) * 10.5)))),
      60,
      20,
    );
    const region = { x: 0, y: 0, width: 60, height: 20 };
    expect(measureSharpness(hard, 60, 20, region)).toBeGreaterThan(measureSharpness(soft, 60, 20, region) * 10);
  });
});

describe('adviseOnFrame', () => {
  it('says a sharp, evenly lit card is usable', () => {
    const rgba = paint(320, 240, (x, y) => grey(((x >> 2) + (y >> 2)) % 2 === 0 ? 70 : 200));
    const advice = adviseOnFrame(measureFrame(rgba, 320, 240, 'card'), 'card');
    expect(advice).toEqual({ isUsable: true, problems: [] });
  });

  it('tells the person to tilt the card away from a reflection', () => {
    const rgba = paint(320, 240, (x, y) => (x > 120 && x < 200 && y > 100 && y < 140 ? grey(255) : grey(((x >> 2) + (y >> 2)) % 2 === 0 ? 70 : 200)));
    const advice = adviseOnFrame(measureFrame(rgba, 320, 240, 'card'), 'card');
    expect(advice.isUsable).toBe(false);
    expect(advice.problems).toEqual(['There is glare on the card: tilt it away from the light, or move away from a lamp or window.']);
  });

  it('tells the person to hold still when the picture is blurred, and to find light when it is dark', () => {
    const advice = adviseOnFrame({ glare: 0, sharpness: frameLimits.minSharpness - 1, brightness: 20 }, 'passport');
    expect(advice.problems).toEqual([
      'The picture is too dark: move to a brighter place or turn on a light.',
      'The picture is blurred: hold still, and move the passport page until the text is sharp.',
    ]);
  });

  it('does not read a bright face as glare', () => {
    const rgba = paint(320, 240, (x, y) => (((x >> 2) + (y >> 2)) % 2 === 0 ? grey(255) : grey(90)));
    expect(measureFrame(rgba, 320, 240, 'face').glare).toBe(0);
    expect(measureFrame(rgba, 320, 240, 'card').glare).toBeGreaterThan(0.4);
  });
});
