import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { embedFallbackFonts } from './pdf-fonts.ts';
import { drawLine, embedFonts } from './pdf-text.ts';

const run = promisify(execFile);

/** A one-page PDF with one line of text, its fallback fonts embedded, as pdftotext reads it back. */
async function printAndExtract(text: string): Promise<string> {
  const document = await PDFDocument.create();
  const page = document.addPage([600, 200]);
  drawLine(page, text, { x: 20, y: 100, size: 14, font: embedFonts(document).regular });
  await embedFallbackFonts(document);
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-fonts-'));
  try {
    const file = path.join(directory, 'line.pdf');
    fs.writeFileSync(file, await document.save());
    const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-']);
    return stdout.trim();
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

describe('text printed with an embedded face', () => {
  it('extracts as written whatever an earlier document printed with the same face', async () => {
    // A combining dot below printed on its own gives the mark glyph its code point; the ị of a later
    // document is the letter and that same mark: it must still read back as ị, not ị followed by a dot.
    expect(await printAndExtract('Stand-alone mark: x\u0323')).toBe('Stand-alone mark: x\u0323');
    expect(await printAndExtract('Nguyễn Thị Ánh')).toBe('Nguyễn Thị Ánh');
    expect(await printAndExtract('Trần Văn Hùng, Đà Nẵng')).toBe('Trần Văn Hùng, Đà Nẵng');
  });
});
