import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, rgb } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { drawLine, embedFonts, formatLineInText, measureText, newTextState, pushContent, wrapText } from './pdf-text.ts';

const run = promisify(execFile);

describe('wrapping text in a column', () => {
  const words = ['Signer', 'Sam', 'signed', 'the', 'deed', 'AVAWAY', 'To,', 'Ty.', 'at', '3:04:05 PM', 'UTC', 'Exhibit', 'A', 'fee-simple', 'W'];

  it('fills each line as far as it goes and breaks only where the next word would not fit', async () => {
    const document = await PDFDocument.create();
    const fonts = embedFonts(document);
    let seed = 11;
    const random = (limit: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % limit;
    };
    let oneLine = 0;
    for (let round = 0; round < 1500; round += 1) {
      const font = [fonts.regular, fonts.bold, fonts.serif, fonts.mono][round % 4];
      if (!font) throw new Error('fonts');
      const text = Array.from({ length: 1 + random(14) }, () => words[random(words.length)]).join(' ');
      const size = 8 + random(5);
      const maxWidth = 100 + random(360);
      const lines = wrapText(text, font, size, maxWidth);
      // Nothing lost, nothing added.
      expect(lines.join(' ')).toBe(text);
      lines.forEach((line, index) => {
        expect(measureText(font, line, size) <= maxWidth || !line.includes(' ')).toBe(true);
        const next = lines[index + 1];
        // Greedy: the next line's first word would not have fitted on this one.
        if (next) expect(measureText(font, `${line} ${next.split(' ')[0]}`, size)).toBeGreaterThan(maxWidth);
      });
      if (lines.length === 1) oneLine += 1;
    }
    // Both kinds were tried: lines that fit whole and lines that wrap.
    expect(oneLine).toBeGreaterThan(100);
    expect(oneLine).toBeLessThan(1400);
  });

  it('keeps line breaks and drops repeated and outer spaces as before', async () => {
    const document = await PDFDocument.create();
    const { regular } = embedFonts(document);
    expect(wrapText('  Two  spaces ', regular, 10, 500)).toEqual(['Two spaces']);
    expect(wrapText('First\nSecond', regular, 10, 500)).toEqual(['First', 'Second']);
    expect(wrapText('', regular, 10, 500)).toEqual(['']);
  });
});

describe('a line of plain ASCII', () => {
  it('is written as a literal string, parentheses and backslashes escaped, and reads back as written', async () => {
    const document = await PDFDocument.create();
    const page = document.addPage([600, 200]);
    const text = 'Signed (in person) by Sam \\ Co. on 3/4';
    drawLine(page, text, { x: 20, y: 100, size: 12, font: embedFonts(document).regular });
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-text-'));
    try {
      const file = path.join(directory, 'line.pdf');
      const bytes = Buffer.from(await document.save({ useObjectStreams: false }));
      fs.writeFileSync(file, bytes);
      const { stdout: content } = await run('qpdf', ['--qdf', '--object-streams=disable', file, '-']);
      expect(content).toContain('(Signed \\(in person\\) by Sam \\\\ Co. on 3/4) Tj');
      const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-']);
      expect(stdout.trim()).toBe(text);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('lines in one text object', () => {
  it('set the colour and font only when they change, and read back as the lines drawn one by one', async () => {
    const document = await PDFDocument.create();
    const fonts = embedFonts(document);
    const page = document.addPage([600, 300]);
    const muted = rgb(0.38, 0.38, 0.42);
    const lines: Array<[string, Parameters<typeof formatLineInText>[2]]> = [
      ['First (line) \\ one', { x: 20, y: 250, size: 12, font: fonts.regular }],
      ['Second line', { x: 20, y: 235, size: 12, font: fonts.regular }],
      ['Third, muted', { x: 20, y: 220, size: 12, font: fonts.regular, color: muted }],
      ['Fourth, bold', { x: 20, y: 205, size: 12, font: fonts.bold, color: muted }],
      ['Fifth, smaller', { x: 20, y: 190, size: 9, font: fonts.bold, color: muted }],
      ['Café ½ — déjà', { x: 20, y: 175, size: 9, font: fonts.bold, color: muted }],
    ];
    const state = newTextState();
    const written = lines.map(([text, options]) => formatLineInText(page, text, options, state));
    expect(written.every((line) => line !== null)).toBe(true);
    const [first, second, third, fourth, fifth, sixth] = written as string[];
    expect(first).toMatch(/^0\.1 0\.1 0\.12 rg \/Helvetica-[0-9a-f]{16} 12 Tf 1 0 0 1 20 250 Tm \(First \\\(line\\\) \\\\ one\) Tj$/);
    expect(second).toBe('1 0 0 1 20 235 Tm (Second line) Tj');
    expect(third).toBe('0.38 0.38 0.42 rg 1 0 0 1 20 220 Tm (Third, muted) Tj');
    expect(fourth).toMatch(/^\/Helvetica-Bold-[0-9a-f]{16} 12 Tf 1 0 0 1 20 205 Tm \(Fourth, bold\) Tj$/);
    expect(fifth).toMatch(/^\/Helvetica-Bold-[0-9a-f]{16} 9 Tf 1 0 0 1 20 190 Tm \(Fifth, smaller\) Tj$/);
    expect(sixth).toMatch(/^1 0 0 1 20 175 Tm <[0-9A-F]+> Tj$/);
    const before = { ...state };
    expect(formatLineInText(page, 'two\nlines', { x: 20, y: 160, size: 9, font: fonts.bold }, state)).toBeNull();
    expect(state).toEqual(before);
    pushContent(page, `q BT ${written.join('\n')} ET Q`);
    // The same lines, each drawn on its own, on a second page.
    const alone = document.addPage([600, 300]);
    for (const [text, options] of lines) drawLine(alone, text, options);
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-text-'));
    try {
      const file = path.join(directory, 'lines.pdf');
      fs.writeFileSync(file, Buffer.from(await document.save({ useObjectStreams: false })));
      const [together, oneByOne] = await Promise.all(
        [1, 2].map(async (number) => (await run('pdftotext', ['-enc', 'UTF-8', '-f', String(number), '-l', String(number), file, '-'])).stdout.trim()),
      );
      expect(together).toBe(lines.map(([text]) => text).join('\n'));
      expect(together).toBe(oneByOne);
      const [a, b] = await Promise.all(
        [1, 2].map(async (number) => {
          await run('pdftoppm', ['-r', '50', '-gray', '-f', String(number), '-l', String(number), '-singlefile', file, path.join(directory, `page${number}`)]);
          return fs.readFileSync(path.join(directory, `page${number}.pgm`));
        }),
      );
      expect(a && b && a.equals(b)).toBe(true);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
