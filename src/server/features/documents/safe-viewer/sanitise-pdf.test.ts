import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDict, PDFDocument, PDFName, type PDFRef } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findActiveContent, hostileMarkers, makeHostilePdf } from '#test/hostile-pdf-fixtures.ts';
import { makePdf } from '#test/pdf-fixtures.ts';
import { sanitiseInPool, stopSanitising } from './sanitise-pool.ts';
import { sanitisePdf, UnreadablePdfError } from './sanitise-pdf.ts';

const run = promisify(execFile);
let directory: string;
let hostile: Buffer;
let sanitised: Uint8Array;
beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'safe-viewer-'));
  hostile = await makeHostilePdf();
  sanitised = await sanitisePdf(hostile);
});
afterAll(async () => {
  await stopSanitising();
  fs.rmSync(directory, { recursive: true, force: true });
});

/** Runs a poppler or qpdf tool on bytes written to a file; resolves with its output and exit code. */
async function runTool(command: string, args: string[], bytes: Uint8Array) {
  const file = path.join(directory, `${Math.random().toString(16).slice(2)}.pdf`);
  fs.writeFileSync(file, bytes);
  try {
    const { stdout, stderr } = await run(command, [...args, file]);
    return { output: stdout + stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, code: failed.code ?? 1 };
  }
}

describe('sanitising a hostile PDF', () => {
  it('starts from a file that really carries scripts, actions and an embedded file (the test would prove nothing otherwise)', async () => {
    const active = await findActiveContent(hostile);
    expect(active.join('\n')).toMatch(/OpenAction/);
    expect(active.join('\n')).toMatch(/\/S \/JavaScript/);
    expect(active.join('\n')).toMatch(/\/S \/Launch/);
    expect(active.join('\n')).toMatch(/\/S \/SubmitForm/);
    expect(active.join('\n')).toMatch(/\/S \/URI/);
    expect(active.join('\n')).toMatch(/\/Type \/EmbeddedFile/);
    expect((await runTool('pdfinfo', ['-js'], hostile)).output).toContain('app.alert');
    expect((await runTool('pdfdetach', ['-list'], hostile)).output).toMatch(/^[1-9]\d* embedded files/);
  });

  it('leaves no script, action, form submission, XFA or embedded file anywhere in the copy', async () => {
    expect(await findActiveContent(sanitised)).toEqual([]);
    const text = Buffer.from(sanitised).toString('latin1');
    for (const marker of hostileMarkers) expect(text, marker).not.toContain(marker);
  });

  it('gives a copy qpdf finds sound, with no JavaScript for poppler and no attachments', async () => {
    const check = await runTool('qpdf', ['--check'], sanitised);
    expect(check.code, check.output).toBe(0);
    expect(check.output).toContain('No syntax or stream encoding errors found');
    const info = await runTool('pdfinfo', [], sanitised);
    expect(info.code, info.output).toBe(0);
    expect(info.output).toMatch(/Pages:\s+2/);
    const scripts = await runTool('pdfinfo', ['-js'], sanitised);
    expect(scripts.code).toBe(0);
    expect(scripts.output).not.toContain('app.alert');
    expect((await runTool('pdfdetach', ['-list'], sanitised)).output).toMatch(/0 embedded files/);
  });

  it('keeps the pages, their text, the internal link and the outline item that jumps within the document', async () => {
    const copy = await PDFDocument.load(sanitised);
    expect(copy.getPageCount()).toBe(2);
    const annots = copy.getPage(0).node.Annots();
    const actions = (annots?.asArray() ?? [])
      .map((ref) => copy.context.lookup(ref, PDFDict))
      .map((annotation) => annotation.lookupMaybe(PDFName.of('A'), PDFDict)?.get(PDFName.of('S'))?.toString())
      .filter(Boolean);
    // The internal jump and the jump whose /Next chain ran a script both remain, as plain jumps.
    expect(actions).toEqual(['/GoTo', '/GoTo']);
    const subtypes = (annots?.asArray() ?? []).map((ref) => copy.context.lookup(ref, PDFDict).get(PDFName.of('Subtype'))?.toString());
    expect(subtypes).not.toContain('/FileAttachment');
    const outlines = copy.catalog.lookup(PDFName.of('Outlines'), PDFDict);
    const first = copy.context.lookup(outlines.get(PDFName.of('First')) as PDFRef, PDFDict);
    expect(first.lookup(PDFName.of('A'), PDFDict).get(PDFName.of('S'))?.toString()).toBe('/GoTo');
    const last = copy.context.lookup(outlines.get(PDFName.of('Last')) as PDFRef, PDFDict);
    expect(last.get(PDFName.of('A'))).toBeUndefined();
  });

  it('keeps what the pages say: poppler reads the text of both pages', async () => {
    const file = path.join(directory, 'copy.pdf');
    fs.writeFileSync(file, sanitised);
    await run('pdftotext', [file, path.join(directory, 'copy.txt')]);
    const words = fs.readFileSync(path.join(directory, 'copy.txt'), 'utf8');
    expect(words).toContain('Hostile document, page 1');
    expect(words).toContain('Hostile document, page 2');
  });

  it('leaves an ordinary PDF readable with the same pages', async () => {
    const plain = await makePdf(3, 'Plain');
    const copy = await PDFDocument.load(await sanitisePdf(plain));
    expect(copy.getPageCount()).toBe(3);
  });
});

describe('bad input', () => {
  it('refuses bytes that are not a PDF with UnreadablePdfError, never a crash', async () => {
    await expect(sanitisePdf(Buffer.from('not a pdf at all\0\0'))).rejects.toBeInstanceOf(UnreadablePdfError);
    await expect(sanitisePdf(new Uint8Array(0))).rejects.toBeInstanceOf(UnreadablePdfError);
  });

  it('answers 422 from the pool for a broken file, and the pool keeps working afterwards', async () => {
    await expect(sanitiseInPool(Buffer.from('%PDF-1.7\n garbage \0 garbage'), 20_000)).rejects.toMatchObject({ statusCode: 422, code: 'broken_pdf' });
    const copy = await sanitiseInPool(hostile, 20_000);
    expect(await findActiveContent(copy)).toEqual([]);
  });

  it('stops a file that runs past its time bound with a sentence, and replaces the thread', async () => {
    const large = await makePdf(400, 'Long');
    await expect(sanitiseInPool(large, 1)).rejects.toMatchObject({ statusCode: 422, message: expect.stringMatching(/took too long/) });
    const copy = await PDFDocument.load(await sanitiseInPool(await makePdf(2), 20_000));
    expect(copy.getPageCount()).toBe(2);
  });

  it('leaves the caller’s bytes usable after handing them to the pool', async () => {
    const bytes = await makePdf(1);
    await sanitiseInPool(bytes, 20_000);
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  });
});
