import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import { degrees, PDFDict, PDFDocument, PDFName, rgb, StandardFonts } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notarizationTypes } from '#shared/jobs.ts';
import { buildPdfWith } from '#test/pdf-attacks.ts';
import { makePdf } from '#test/pdf-fixtures.ts';
import { communicationTechnologySentence, renderNotarizedPdf, type AuditFacts, type CertificateFacts, type FieldToBurn } from './render.ts';
import type { NotarialFacts } from './notarial-facts.ts';

const run = promisify(execFile);
let workDirectory: string;

beforeAll(async () => {
  workDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-render-test-'));
});

afterAll(async () => {
  if (workDirectory) await fs.promises.rm(workDirectory, { recursive: true, force: true });
});

/** A solid-colour PNG (RGB, 8 bits). */
function makePng(width: number, height: number, [red, green, blue]: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, index) => {
    let value = index;
    for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    return value >>> 0;
  });
  const crc32 = (bytes: Buffer) => {
    let value = 0xffffffff;
    for (const byte of bytes) value = (crcTable[(value ^ byte) & 0xff] ?? 0) ^ (value >>> 8);
    return (value ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, checksum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [red, green, blue]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A session was recorded and every signer's identity proven: the act the later capabilities make possible. */
const recordedAct: NotarialFacts = { isNotarialAct: true, hasRecordedSession: true, hasProvenIdentity: true, reasons: [] };
/** What this version records: no session recording and no identity proofing. */
const notRecorded: NotarialFacts = {
  isNotarialAct: false,
  hasRecordedSession: false,
  hasProvenIdentity: false,
  reasons: ['No audio-video session was recorded.', 'No signer’s identity was proven.'],
};
const verificationId = '0e5b2a4c-7d1f-4c3b-9a8e-1f2d3c4b5a69';

const certificate: CertificateFacts = {
  actKey: 'acknowledgment',
  actLabel: 'Acknowledgment',
  notaryName: 'Nora Q. Notary',
  commissionNumber: '13245768-9',
  commissionState: 'TX',
  county: 'Travis',
  commissionExpiresOn: '2030-06-30',
  notarizedAt: new Date('2026-03-14T15:09:26Z'),
  signerNames: ['Sam Signer', 'Wanda Witness'],
  timeZone: 'America/Chicago',
  notarialFacts: recordedAct,
  verification: { id: verificationId, url: `https://notary.example.test/verify?id=${verificationId}` },
};

const audit: AuditFacts = {
  jobId: '5b7c0e9e-1111-4222-8333-444455556666',
  jobTitle: 'Refinance closing',
  documentName: 'deed-of-trust.pdf',
  originalSha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  signers: [
    {
      name: 'Sam Signer',
      role: 'signer',
      signedAt: new Date('2026-03-14T15:05:00Z'),
      identityMethod: 'Credential analysis and knowledge-based authentication',
    },
    { name: 'Wanda Witness', role: 'witness', signedAt: null, identityMethod: 'Personal knowledge of the notary' },
  ],
  recordingReference: null,
  events: [
    { at: new Date('2026-03-14T14:59:00Z'), action: 'job.status_changed', actorName: 'Nora Q. Notary', data: { from: 'ready', to: 'in_session' } },
    {
      at: new Date('2026-03-14T15:05:00Z'),
      action: 'field.filled',
      actorName: 'Sam Signer',
      data: { documentName: 'deed-of-trust.pdf', page: 3, type: 'signature' },
    },
    { at: new Date('2026-03-14T15:09:26Z'), action: 'job.status_changed', actorName: null, data: { from: 'in_session', to: 'completed' } },
  ],
};

async function writeTemporary(name: string, bytes: Buffer): Promise<string> {
  const file = path.join(workDirectory, name);
  await fs.promises.writeFile(file, bytes);
  return file;
}

/** The text a reader extracts from the given pages, whitespace collapsed. */
async function extractText(pdf: Buffer, firstPage?: number, lastPage?: number): Promise<string> {
  const file = await writeTemporary(`text-${Math.random().toString(16).slice(2)}.pdf`, pdf);
  const range = [...(firstPage ? ['-f', String(firstPage)] : []), ...(lastPage ? ['-l', String(lastPage)] : [])];
  const { stdout } = await run('pdftotext', [...range, '-enc', 'UTF-8', file, '-']);
  return stdout.replace(/\s+/g, ' ');
}

/** The page as a viewer paints it (crop box, rotated; 72 dpi): RGB triples, row by row from the top left. */
async function renderPage(pdf: Buffer, page: number): Promise<{ width: number; height: number; pixel: (x: number, y: number) => [number, number, number] }> {
  const file = await writeTemporary(`pixels-${page}-${Math.random().toString(16).slice(2)}.pdf`, pdf);
  const { stdout } = await run('pdftoppm', ['-cropbox', '-f', String(page), '-l', String(page), '-r', '72', file], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  const image = stdout as unknown as Buffer;
  // P6 <width> <height> <max>\n then RGB triples
  const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(image.subarray(0, 40).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not write a PPM');
  const [width, height] = [Number(header[1]), Number(header[2])];
  const pixel = (x: number, y: number): [number, number, number] => {
    const offset = header[0].length + (y * width + x) * 3;
    return [image[offset] ?? -1, image[offset + 1] ?? -1, image[offset + 2] ?? -1];
  };
  return { width, height, pixel };
}

/** The RGB colour a viewer paints at a point given as fractions of the displayed page (crop box, rotated; 72 dpi). */
async function readPixel(pdf: Buffer, page: number, x: number, y: number): Promise<[number, number, number]> {
  const image = await renderPage(pdf, page);
  return image.pixel(Math.floor(x * image.width), Math.floor(y * image.height));
}

describe('renderNotarizedPdf', () => {
  it('appends a notarial certificate page and an audit page to the original pages', async () => {
    const original = await makePdf(3, 'Deed of trust');
    const { pdf, pageCount } = await renderNotarizedPdf({ original, fields: [], certificate, audit });
    expect(pageCount).toBe(5);
    const loaded = await PDFDocument.load(pdf);
    expect(loaded.getPageCount()).toBe(5);
    // The appended pages are US letter, each box the page itself.
    for (const page of loaded.getPages().slice(3)) {
      expect(page.getMediaBox()).toEqual({ x: 0, y: 0, width: 612, height: 792 });
      expect(page.getCropBox()).toEqual({ x: 0, y: 0, width: 612, height: 792 });
    }
    expect(await extractText(pdf, 1, 3)).toContain('Deed of trust, page 3');
    expect(await extractText(pdf, 4, 4)).toContain('NOTARIAL CERTIFICATE');
    expect(await extractText(pdf, 5, 5)).toContain('AUDIT CERTIFICATE');
  });

  it('appends upright, uncropped letter pages whatever crop box and turn the page tree gives its pages (found by attack)', async () => {
    const base = await PDFDocument.load(await makePdf(2, 'Deed of trust'));
    // Inheritable attributes on the root of the page tree: every page without its own takes them.
    const root = base.catalog.Pages();
    root.set(PDFName.of('CropBox'), base.context.obj([0, 0, 100, 100]));
    root.set(PDFName.of('Rotate'), base.context.obj(90));
    const original = Buffer.from(await base.save({ useObjectStreams: false }));
    const { pdf } = await renderNotarizedPdf({ original, fields: [], certificate, audit });
    const loaded = await PDFDocument.load(pdf);
    for (const page of loaded.getPages().slice(2)) {
      expect(page.getCropBox()).toEqual({ x: 0, y: 0, width: 612, height: 792 });
      expect(page.getRotation().angle).toBe(0);
    }
    // The original's own pages still take what the tree gives them.
    expect(loaded.getPages()[0]?.getCropBox()).toEqual({ x: 0, y: 0, width: 100, height: 100 });
    expect(await extractText(pdf, 3, 3)).toContain('NOTARIAL CERTIFICATE');
  });

  /** The original sealed with the signer's name on each of its `pages` pages, marked as not a notarial act (a banner on every page). */
  const sealWithNameOnEveryPage = (original: Buffer, pages: number) =>
    renderNotarizedPdf({
      original,
      fields: Array.from({ length: pages }, (_, index): FieldToBurn => ({
        type: 'name',
        page: index + 1,
        x: 0.1,
        y: 0.9,
        width: 0.3,
        height: 0.03,
        value: 'Sam Signer',
        imagePng: null,
      })),
      certificate: { ...certificate, notarialFacts: notRecorded },
      audit,
    });

  it('writes resources its pages share once, not once a page, whatever page it draws on (found by attack: 200 KB in, 430 MB out)', async () => {
    const base = await PDFDocument.create();
    const font = await base.embedFont(StandardFonts.Helvetica);
    // 300 pages drawing text, all of them taking their resources from the page tree's root: 300 fonts in one dictionary.
    const shared = base.context.obj({});
    for (let index = 0; index < 300; index += 1) shared.set(PDFName.of(`F${index}`), font.ref);
    for (let index = 0; index < 300; index += 1) {
      const page = base.addPage([612, 792]);
      page.node.set(PDFName.of('Contents'), base.context.register(base.context.flateStream(`BT /F${index} 12 Tf 72 700 Td (Page ${index + 1}) Tj ET`)));
    }
    base.catalog.Pages().set(PDFName.of('Resources'), base.context.obj({ Font: shared }));
    for (const page of base.getPages()) page.node.delete(PDFName.of('Resources'));
    const original = Buffer.from(await base.save({ useObjectStreams: false }));
    const { pdf } = await sealWithNameOnEveryPage(original, 300);
    // Each page's own additions are a few hundred bytes; 300 copies of the shared fonts would be 300 x 6 KB.
    expect(pdf.length - original.length).toBeLessThan(500_000);
    const text = await extractText(pdf, 300, 300);
    expect(text).toContain('Page 300');
    expect(text).toContain('Sam Signer');
  });

  it('writes the fonts, images and annotations its pages name by reference once, not once a page (found by attack: 40 KB in, 10.5 MB out)', async () => {
    const base = await PDFDocument.create();
    const font = await base.embedFont(StandardFonts.Helvetica);
    // Each page has resources of its own, naming one shared dictionary of 300 entries as its fonts, images
    // and graphics states, and one shared list of annotations.
    const shared = base.context.obj({});
    for (let index = 0; index < 300; index += 1) shared.set(PDFName.of(`F${index}`), font.ref);
    const sharedRef = base.context.register(shared);
    const annotations = base.context.register(
      base.context.obj(Array.from({ length: 300 }, (_, index) => base.context.obj({ Type: 'Annot', Subtype: 'Text', Rect: [index, 0, index + 1, 1] }))),
    );
    for (let index = 0; index < 300; index += 1) {
      const page = base.addPage([612, 792]);
      page.node.set(PDFName.of('Contents'), base.context.register(base.context.flateStream(`BT /F${index} 12 Tf 72 700 Td (Page ${index + 1}) Tj ET`)));
      page.node.set(PDFName.of('Resources'), base.context.obj({ Font: sharedRef, XObject: sharedRef, ExtGState: sharedRef }));
      page.node.set(PDFName.of('Annots'), annotations);
    }
    const original = Buffer.from(await base.save({ useObjectStreams: false }));
    const { pdf } = await sealWithNameOnEveryPage(original, 300);
    expect(pdf.length - original.length).toBeLessThan(500_000);
    const text = await extractText(pdf, 300, 300);
    expect(text).toContain('Page 300');
    expect(text).toContain('Sam Signer');
  });

  it('draws a field only on its own page when pages share one list of content streams (found in review)', async () => {
    const base = await PDFDocument.create();
    const font = await base.embedFont(StandardFonts.Helvetica);
    const stream = base.context.register(base.context.flateStream('BT /F1 12 Tf 72 700 Td (Shared page text) Tj ET'));
    const contents = base.context.register(base.context.obj([stream]));
    const resources = base.context.register(base.context.obj({ Font: { F1: font.ref } }));
    for (let index = 0; index < 2; index += 1) {
      const page = base.addPage([612, 792]);
      page.node.set(PDFName.of('Contents'), contents);
      page.node.set(PDFName.of('Resources'), resources);
    }
    const original = Buffer.from(await base.save({ useObjectStreams: false }));
    const fields: FieldToBurn[] = [{ type: 'name', page: 1, x: 0.1, y: 0.5, width: 0.3, height: 0.03, value: 'Sam Signer', imagePng: null }];
    const { pdf } = await renderNotarizedPdf({ original, fields, certificate, audit });
    expect(await extractText(pdf, 1, 1)).toContain('Sam Signer');
    const second = await extractText(pdf, 2, 2);
    expect(second).toContain('Shared page text');
    expect(second).not.toContain('Sam Signer');
  });

  it('draws a field only on its own page when the page tree lists one page object twice, directly or through a shared node (found by attack)', async () => {
    const page = (parent: number) => `<< /Type /Page /Parent ${parent} 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`;
    const text = 'BT /F1 12 Tf 72 700 Td (Shared page text) Tj ET';
    const shared = { 4: [`<< /Length ${text.length} >>\nstream\n${text}\nendstream`], 5: ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'] };
    const originals = [
      buildPdfWith({ 2: ['<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>'], 3: [page(2)], ...shared }),
      // A node of the tree listed twice: its page shows as pages 1 and 2.
      buildPdfWith({
        2: ['<< /Type /Pages /Kids [6 0 R 6 0 R] /Count 2 >>'],
        6: ['<< /Type /Pages /Parent 2 0 R /Kids [3 0 R] /Count 1 >>'],
        3: [page(6)],
        ...shared,
      }),
      // Two nodes sharing one list of kids, which lists the page twice (second attack: the copies went into the shared list).
      buildPdfWith({
        2: ['<< /Type /Pages /Kids [6 0 R 7 0 R] /Count 4 >>'],
        6: ['<< /Type /Pages /Parent 2 0 R /Kids 8 0 R /Count 2 >>'],
        7: ['<< /Type /Pages /Parent 2 0 R /Kids 8 0 R /Count 2 >>'],
        8: ['[3 0 R 3 0 R]'],
        3: [page(6)],
        ...shared,
      }),
    ];
    for (const original of originals) {
      const fields: FieldToBurn[] = [{ type: 'name', page: 1, x: 0.1, y: 0.5, width: 0.3, height: 0.03, value: 'Sam Signer', imagePng: null }];
      const { pdf, pageCount } = await renderNotarizedPdf({ original, fields, certificate, audit });
      expect(await extractText(pdf, 1, 1)).toContain('Sam Signer');
      const second = await extractText(pdf, 2, 2);
      expect(second).toContain('Shared page text');
      expect(second).not.toContain('Sam Signer');
      expect(pageCount).toBeGreaterThan(2);
      for (const other of [3, 4].filter((number) => number <= pageCount - 2)) {
        const shown = await extractText(pdf, other, other);
        if (shown.includes('Shared page text')) expect(shown).not.toContain('Sam Signer');
      }
    }
    // A copy keeps the page's own parent, whose /Rotate and /MediaBox it showed with (second attack: it took the second node's).
    const inherited = buildPdfWith({
      2: ['<< /Type /Pages /Kids [6 0 R 7 0 R] /Count 2 >>'],
      6: ['<< /Type /Pages /Parent 2 0 R /Kids [3 0 R] /Count 1 /Rotate 90 /MediaBox [0 0 792 612] >>'],
      7: ['<< /Type /Pages /Parent 2 0 R /Kids [3 0 R] /Count 1 /Rotate 0 /MediaBox [0 0 300 300] >>'],
      3: ['<< /Type /Page /Parent 6 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>'],
      ...shared,
    });
    const before = await PDFDocument.load(inherited);
    const { pdf } = await renderNotarizedPdf({ original: inherited, fields: [], certificate, audit });
    const after = await PDFDocument.load(pdf);
    for (const index of [0, 1]) {
      expect(after.getPage(index).getRotation().angle).toBe(before.getPage(index).getRotation().angle);
      expect(after.getPage(index).getMediaBox()).toEqual(before.getPage(index).getMediaBox());
    }
  });

  it('seals an original whose resources name themselves as their fonts, or whose page is its own resources (decision 070)', async () => {
    for (const original of [
      buildPdfWith({ 3: ['<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 4 0 R >>'], 4: ['<< /Font 4 0 R >>'] }),
      buildPdfWith({ 3: ['<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 3 0 R >>'] }),
    ]) {
      const fields: FieldToBurn[] = [{ type: 'name', page: 1, x: 0.1, y: 0.5, width: 0.3, height: 0.03, value: 'Sam Signer', imagePng: null }];
      const { pdf } = await renderNotarizedPdf({ original, fields, certificate, audit });
      expect(await extractText(pdf, 1, 1)).toContain('Sam Signer');
    }
  });

  it('states on the certificate page that the act used communication technology, with the notary, commission, state and county', async () => {
    const { pdf } = await renderNotarizedPdf({ original: await makePdf(1), fields: [], certificate, audit });
    const text = await extractText(pdf, 2, 2);
    expect(text).toContain('This notarial act involved the use of communication technology.');
    expect(communicationTechnologySentence).toBe('This notarial act involved the use of communication technology.');
    expect(text).toContain('State of Texas');
    expect(text).toContain('County of Travis');
    expect(text).toContain('This record was acknowledged before me on March 14, 2026 by Sam Signer and Wanda Witness');
    expect(text).toContain('Nora Q. Notary, Notary Public');
    expect(text).toContain('Commission No. 13245768-9');
    expect(text).toContain('My commission expires June 30, 2030');
    expect(text).toContain('Notarized March 14, 2026 at 10:09:26 AM CDT');
    expect(text).toContain('Record: deed-of-trust.pdf');
    // the seal, drawn beside the signature line
    expect(text).toContain('NOTARY PUBLIC');
    expect(text).toContain('Comm. No. 13245768-9');
    expect(text).toContain('Expires 06/30/2030');
  });

  it('words the certificate for each notarial act', async () => {
    const expected: Record<string, string> = {
      acknowledgment: 'This record was acknowledged before me on March 14, 2026 by Sam Signer and Wanda Witness',
      jurat: 'Signed and sworn to (or affirmed) before me on March 14, 2026 by Sam Signer and Wanda Witness',
      oath_affirmation:
        'On March 14, 2026, Sam Signer and Wanda Witness appeared before me by means of audio-video communication and took an oath (or affirmation) administered by me.',
      signature_witnessing: 'Signed before me on March 14, 2026 by Sam Signer and Wanda Witness',
      copy_certification: 'I certify that this is a true and correct copy of a record in the possession of Sam Signer and Wanda Witness',
    };
    expect(Object.keys(expected).sort()).toEqual(notarizationTypes.map((type) => type.key).sort());
    for (const type of notarizationTypes) {
      const { pdf } = await renderNotarizedPdf({
        original: await makePdf(1),
        fields: [],
        certificate: { ...certificate, actKey: type.key, actLabel: type.label },
        audit,
      });
      const text = await extractText(pdf, 2, 2);
      expect(text, type.key).toContain(expected[type.key]);
      expect(text, type.key).toContain(`${type.label}, remote online notarization`);
      expect(text, type.key).toContain(communicationTechnologySentence);
      expect(await extractText(pdf), type.key).not.toContain('NOT A NOTARIAL ACT');
    }
  });

  it('marks every page, original and appended, with an opaque "Not a notarial act" banner when no session or identity was recorded', async () => {
    const base = await PDFDocument.load(await makePdf(3, 'Deed of trust'));
    base.getPage(1).setRotation(degrees(90));
    base.getPage(2).setCropBox(40, 60, 500, 600);
    const fields: FieldToBurn[] = [{ type: 'name', page: 1, x: 0.1, y: 0.5, width: 0.4, height: 0.03, value: 'Sam Signer', imagePng: null }];
    const { pdf, pageCount } = await renderNotarizedPdf({
      original: Buffer.from(await base.save()),
      fields,
      certificate: { ...certificate, notarialFacts: notRecorded },
      audit,
    });
    expect(pageCount).toBe(5);
    for (let page = 1; page <= pageCount; page += 1) {
      expect(await extractText(pdf, page, page), `page ${page}`).toContain('NOT A NOTARIAL ACT: no recorded audio-video session and no proven identity');
      // The banner's background is painted over whatever the page had there: a solid dark red at its left end.
      const [red, green, blue] = await readPixel(pdf, page, 0.004, 0.008);
      expect(red, `page ${page}`).toBeGreaterThan(120);
      expect(green, `page ${page}`).toBeLessThan(60);
      expect(blue, `page ${page}`).toBeLessThan(60);
    }
  });

  it('never claims an audio-video appearance, proven identity or the use of communication technology that was not recorded', async () => {
    for (const type of notarizationTypes) {
      const { pdf } = await renderNotarizedPdf({
        original: await makePdf(1),
        fields: [{ type: 'notarial_certificate', page: 1, x: 0.1, y: 0.6, width: 0.8, height: 0.25, value: null, imagePng: null }],
        certificate: { ...certificate, actKey: type.key, actLabel: type.label, notarialFacts: notRecorded },
        audit,
      });
      const text = await extractText(pdf);
      for (const claim of [
        'audio-video communication',
        'appeared before me',
        'acknowledged before me',
        'sworn to',
        'communication technology',
        'remote online notarization',
        'Notarized ',
      ]) {
        expect(text, `${type.key}: ${claim}`).not.toContain(claim);
      }
      const certificatePage = await extractText(pdf, 2, 2);
      expect(certificatePage).toContain('SIGNING CERTIFICATE: NOT A NOTARIAL ACT');
      expect(certificatePage).toContain(`Requested act: ${type.label}. It was not performed as a notarial act.`);
      expect(certificatePage).toContain('On March 14, 2026, this record was signed electronically on this platform by Sam Signer and Wanda Witness.');
      expect(certificatePage).toContain('Not a notarial act: No audio-video session was recorded. No signer’s identity was proven.');
      expect(certificatePage).toContain('Completed March 14, 2026 at 10:09:26 AM CDT');
      // The block the notary placed on the document says the same.
      expect(await extractText(pdf, 1, 1)).toContain('Not a notarial act: No audio-video session was recorded.');
    }
  });

  it('says on the audit certificate that the act is not notarial and that nothing was recorded', async () => {
    const { pdf } = await renderNotarizedPdf({
      original: await makePdf(1),
      fields: [],
      certificate: { ...certificate, notarialFacts: notRecorded },
      audit: {
        ...audit,
        signers: [{ name: 'Sam Signer', role: 'signer', signedAt: null, identityMethod: 'Not proven: no identity proofing outcome is recorded' }],
      },
    });
    const text = await extractText(pdf, 3, 3);
    expect(text).toContain('Record of electronic signing, not a notarial act');
    expect(text).toContain('Not a notarial act: No audio-video session was recorded. No signer’s identity was proven.');
    expect(text).toContain('None: no audio-video session was recorded');
    expect(text).toContain('Identity: Not proven: no identity proofing outcome is recorded');
  });

  it('prints the verification id and its address on the certificate page', async () => {
    const { pdf } = await renderNotarizedPdf({ original: await makePdf(1), fields: [], certificate: { ...certificate, notarialFacts: notRecorded }, audit });
    const text = await extractText(pdf, 2, 2);
    expect(text).toContain(`Verification ID: ${verificationId}`);
    expect(text).toContain(`Verify at: https://notary.example.test/verify?id=${verificationId}`);
  });

  it('lists the job, the original hash, each signer, the recording and every event as a sentence on the audit page', async () => {
    const { pdf } = await renderNotarizedPdf({ original: await makePdf(1), fields: [], certificate, audit });
    const text = await extractText(pdf, 3, 3);
    for (const expected of [
      'Refinance closing',
      audit.jobId,
      'deed-of-trust.pdf',
      audit.originalSha256,
      'None: no audio-video session was recorded',
      'Sam Signer',
      // Written for people in the certificate's zone (America/Chicago, daylight time on 14 March 2026).
      'Role: signer. Signed: 14 March 2026 at 10:05:00 GMT-5.',
      'Identity: Credential analysis and knowledge-based authentication',
      'Wanda Witness',
      'Role: witness. Signed: not signed.',
      'Time What happened',
      '14 March 2026 at 09:59:00 GMT-5 Nora Q. Notary started the session.',
      '14 March 2026 at 10:05:00 GMT-5 Sam Signer signed page 3 of deed-of-trust.pdf.',
      'The system completed the job.',
      'Audit certificate, page 1 of 1.',
    ]) {
      expect(text).toContain(expected);
    }
    const withRecording = await renderNotarizedPdf({
      original: await makePdf(1),
      fields: [],
      certificate,
      audit: { ...audit, recordingReference: 'rec-2026-03-14-0042' },
    });
    expect(await extractText(withRecording.pdf, 3, 3)).toContain('rec-2026-03-14-0042');
  });

  it('continues a long event list onto more audit pages, counted in the page total', async () => {
    const events = Array.from({ length: 150 }, (_, index) => ({
      at: new Date(Date.UTC(2026, 2, 14, 15, 0, index)),
      action: 'field.filled',
      actorName: 'Sam Signer',
      data: { documentName: 'deed.pdf', page: index + 1, type: 'initials' },
    }));
    const { pdf, pageCount } = await renderNotarizedPdf({ original: await makePdf(2), fields: [], certificate, audit: { ...audit, events } });
    expect(pageCount).toBeGreaterThanOrEqual(2 + 1 + 3);
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(pageCount);
    const auditPages = pageCount - 3;
    const text = await extractText(pdf, 4);
    expect(text).toContain(`Audit certificate, page 1 of ${auditPages}.`);
    expect(text).toContain(`Audit certificate, page ${auditPages} of ${auditPages}.`);
    expect(text).toContain('Audit certificate (continued)');
    expect(text).toContain('Sam Signer initialed page 1 of deed.pdf.');
    expect(text).toContain('Sam Signer initialed page 150 of deed.pdf.');
  });

  it('burns text fields into the original page where they were placed', async () => {
    const fields: FieldToBurn[] = [
      { type: 'name', page: 2, x: 0.1, y: 0.5, width: 0.4, height: 0.03, value: 'Sam Signer', imagePng: null },
      { type: 'date_signed', page: 2, x: 0.6, y: 0.5, width: 0.3, height: 0.03, value: 'March 14, 2026', imagePng: null },
      { type: 'text', page: 1, x: 0.1, y: 0.3, width: 0.5, height: 0.05, value: 'Parcel 17, Block B', imagePng: null },
    ];
    const { pdf } = await renderNotarizedPdf({ original: await makePdf(2), fields, certificate, audit });
    expect(await extractText(pdf, 1, 1)).toContain('Parcel 17, Block B');
    const file = await writeTemporary('bbox.pdf', pdf);
    const { stdout } = await run('pdftotext', ['-bbox', '-f', '2', '-l', '2', file, '-']);
    const word = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">Sam<\/word>/.exec(stdout);
    expect(word).not.toBeNull();
    const [xMin, yMin, , yMax] = (word ?? []).slice(1).map(Number) as [number, number, number, number];
    expect(xMin).toBeGreaterThanOrEqual(0.1 * 612);
    expect(xMin).toBeLessThan(0.1 * 612 + 6);
    expect(yMin).toBeGreaterThanOrEqual(0.5 * 792 - 1);
    expect(yMax).toBeLessThanOrEqual(0.53 * 792 + 1);
    expect(stdout).toMatch(/>March<\/word>/);
  });

  it('draws a signature image inside its field, also on a page turned by /Rotate or cropped', async () => {
    const base = await PDFDocument.load(await makePdf(4));
    base.getPage(1).setRotation(degrees(90));
    base.getPage(2).setCropBox(100, 150, 400, 500);
    base.getPage(3).setCropBox(30, 40, 500, 700);
    base.getPage(3).setRotation(degrees(270));
    const original = Buffer.from(await base.save());
    const blue = makePng(40, 20, [0, 0, 255]);
    const field = { type: 'signature' as const, x: 0.2, y: 0.6, width: 0.3, height: 0.1, value: null, imagePng: blue };
    const pages = [1, 2, 3, 4];
    const { pdf } = await renderNotarizedPdf({ original, fields: pages.map((page) => ({ ...field, page })), certificate, audit });
    for (const page of pages) {
      // The image keeps its 2:1 shape, centred in the field: its middle is blue, the page beside the field white.
      expect(await readPixel(pdf, page, 0.35, 0.65), `page ${page} inside`).toEqual([0, 0, 255]);
      expect(await readPixel(pdf, page, 0.1, 0.65), `page ${page} left of the field`).toEqual([255, 255, 255]);
      expect(await readPixel(pdf, page, 0.35, 0.55), `page ${page} above the field`).toEqual([255, 255, 255]);
    }
    const file = await writeTemporary('images.pdf', pdf);
    const { stdout } = await run('pdfimages', ['-list', file]);
    // one image object, drawn on each page
    expect(stdout.split('\n').filter((line) => /^\s+\d+\s+\d+\s+image\s+40\s+20\s/.test(line))).toHaveLength(4);
    expect(
      new Set(
        stdout
          .split('\n')
          .filter((line) => /image\s+40\s+20\s/.test(line))
          .map((line) => line.trim().split(/\s+/)[10]),
      ),
    ).toHaveProperty('size', 1);
  });

  it('draws the notary seal and the certificate block where the notary placed them', async () => {
    const fields: FieldToBurn[] = [
      { type: 'notary_seal', page: 1, x: 0.65, y: 0.05, width: 0.25, height: 0.2, value: null, imagePng: null },
      { type: 'notarial_certificate', page: 1, x: 0.1, y: 0.6, width: 0.8, height: 0.2, value: null, imagePng: null },
      { type: 'checkbox', page: 1, x: 0.1, y: 0.9, width: 0.03, height: 0.03, value: 'true', imagePng: null },
    ];
    const { pdf, pageCount } = await renderNotarizedPdf({ original: await makePdf(1), fields, certificate, audit });
    expect(pageCount).toBe(3);
    const text = await extractText(pdf, 1, 1);
    expect(text).toContain('NOTARY PUBLIC');
    expect(text).toContain('Comm. No. 13245768-9');
    expect(text).toContain('State of Texas, County of Travis');
    expect(text).toContain(communicationTechnologySentence);
    expect(text).toContain('Nora Q. Notary, Notary Public, State of Texas. Commission No. 13245768-9, expires June 30, 2030.');
    // The seal's outer ring is drawn in seal blue: a circle of radius 0.96 x half the field's
    // shorter side (153 pt), centred in the field, its 2.6 pt ring ending 118.8 - 73.4 = 45.4 pt from the top.
    const [red, green, blue] = await readPixel(pdf, 1, 0.775, 46.7 / 792);
    expect(blue).toBeGreaterThan(red + 40);
    expect(blue).toBeGreaterThan(green + 40);
  });

  it('prints the certificate block placed on a page over an opaque white background at a legible size, even in a small box', async () => {
    // A deed page covered in red "text": whatever shows through the certificate would be red.
    const base = await PDFDocument.create();
    const page = base.addPage([612, 792]);
    page.drawRectangle({ x: 0, y: 0, width: 612, height: 792, color: rgb(1, 0, 0) });
    const box = { x: 0.1, y: 0.4, width: 0.5, height: 0.04 };
    const { pdf } = await renderNotarizedPdf({
      original: Buffer.from(await base.save()),
      fields: [{ type: 'notarial_certificate', page: 1, ...box, value: null, imagePng: null }],
      certificate,
      audit,
    });
    const image = await renderPage(pdf, 1);
    const [left, top, right, bottom] = [box.x * image.width, box.y * image.height, (box.x + box.width) * image.width, (box.y + box.height) * image.height].map(
      Math.round,
    ) as [number, number, number, number];
    let seeThrough = 0;
    let white = 0;
    for (let y = top + 1; y < bottom - 1; y += 1) {
      for (let x = left + 1; x < right - 1; x += 1) {
        const [red, green, blue] = image.pixel(x, y);
        if (red - green > 100 && red - blue > 100) seeThrough += 1;
        if (red > 245 && green > 245 && blue > 245) white += 1;
      }
    }
    expect(seeThrough, 'pixels of the page showing through the certificate').toBe(0);
    expect(white / ((right - left - 2) * (bottom - top - 2))).toBeGreaterThan(0.5);
    expect(image.pixel(left - 3, Math.round((top + bottom) / 2))).toEqual([255, 0, 0]);
    // Every line of the block is set at 8 pt or more (the font size pdf.js reads from the page).
    const document = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, verbosity: 0 }).promise;
    const content = await (await document.getPage(1)).getTextContent();
    const sizes = content.items.flatMap((item) => ('str' in item && item.str.trim() ? [Math.hypot(item.transform[0] ?? 0, item.transform[1] ?? 0)] : []));
    expect(sizes.length).toBeGreaterThan(3);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(8);
    await document.destroy();
    // All of it is there: nothing was cut to fit the small box.
    const text = await extractText(pdf, 1, 1);
    expect(text).toContain('State of Texas, County of Travis');
    expect(text).toContain('Nora Q. Notary, Notary Public, State of Texas. Commission No. 13245768-9, expires June 30, 2030.');
  });

  it('prints names in Vietnamese, Greek, Cyrillic, Chinese, Japanese and Korean on the field, the certificate and the audit pages as they were given', async () => {
    const names = ['Nguyễn Thị Ánh', 'Ελένη Παπαδοπούλου', 'Дмитрий Иванов', '王小明', '田中 さくら', '김민수'];
    const fields: FieldToBurn[] = [{ type: 'name', page: 1, x: 0.1, y: 0.5, width: 0.8, height: 0.04, value: 'Zoë Ünsworth Nguyễn Thị Ánh', imagePng: null }];
    const { pdf } = await renderNotarizedPdf({
      original: await makePdf(1),
      fields,
      certificate: { ...certificate, notaryName: 'Trần Văn Hùng', signerNames: names },
      audit: {
        ...audit,
        jobTitle: 'Closing – “final” Nguyễn',
        signers: names.map((name) => ({ name, role: 'signer', signedAt: null, identityMethod: 'Personal knowledge of the notary' })),
      },
    });
    expect(await extractText(pdf, 1, 1)).toContain('Zoë Ünsworth Nguyễn Thị Ánh');
    const certificatePage = await extractText(pdf, 2, 2);
    expect(certificatePage).toContain(`by ${names.slice(0, -1).join(', ')}, and ${names.at(-1)}`);
    expect(certificatePage).toContain('Trần Văn Hùng, Notary Public');
    const auditPage = await extractText(pdf, 3, 3);
    expect(auditPage).toContain('Closing – “final” Nguyễn');
    for (const name of names) expect(auditPage).toContain(name);
    expect(`${certificatePage}${auditPage}`).not.toMatch(/\?(?!id=)/);
  });

  it('prints a Vietnamese or Chinese notary name round the seal as given, never as question marks', async () => {
    const field: FieldToBurn = { type: 'notary_seal', page: 1, x: 0.65, y: 0.05, width: 0.25, height: 0.2, value: null, imagePng: null };
    for (const [notaryName, printed] of [
      ['Nguyễn Thị Ánh', 'NGUYỄNTHỊÁNH'],
      ['王小明', '王小明'],
    ] as const) {
      const { pdf } = await renderNotarizedPdf({ original: await makePdf(1), fields: [field], certificate: { ...certificate, notaryName }, audit });
      // The name goes round the arc a character at a time, each turned: pdftotext gives it back in pieces, in order.
      const sealPage = await extractText(pdf, 1, 1);
      expect(sealPage.replace(/\s+/g, ''), notaryName).toContain(printed);
      expect(sealPage).toContain('Comm. No. 13245768-9');
      expect(sealPage).not.toMatch(/[?\ufffd]|\[U\+/);
    }
  });

  it('prints Arabic and Hebrew names right to left, shaped, so a reader extracts them as written; Devanagari shaped, its letters extracted in the order drawn', async () => {
    const names = ['محمد علي', 'דוד כהן', 'प्रिया शर्मा'];
    const { pdf } = await renderNotarizedPdf({
      original: await makePdf(1),
      fields: [],
      certificate: { ...certificate, signerNames: names },
      audit: { ...audit, signers: names.map((name) => ({ name, role: 'signer', signedAt: null, identityMethod: 'Personal knowledge of the notary' })) },
    });
    // pdftotext puts right-to-left text back in reading order, between embedding marks.
    const auditPage = (await extractText(pdf, 3, 3)).replace(/[\u202a-\u202e]/g, '');
    expect(auditPage).toContain('محمد علي');
    expect(auditPage).toContain('דוד כהן');
    // A pre-base vowel sign (ि) and a reph (र्) are drawn before their consonants, and extracted in that drawn order:
    // every character comes back, not the typed sequence.
    const sorted = (text: string) => [...text].sort().join('');
    const extracted = auditPage.split(' ').filter((word) => /[\u0900-\u097f]/.test(word));
    expect(extracted.map(sorted)).toEqual(['प्रिया', 'शर्मा'].map(sorted));
  });

  it('writes a character no embedded font has as its code point, never as a question mark or a box', async () => {
    const { pdf } = await renderNotarizedPdf({ original: await makePdf(1), fields: [], certificate, audit: { ...audit, jobTitle: 'Closing 🏠' } });
    expect(await extractText(pdf, 3, 3)).toContain('Closing [U+1F3E0]');
  });

  it('prints names and titles stored before the one-line rule on one line each: no fake lines on the certificate or audit pages', async () => {
    const forged = 'Sam\nIdentity: proven by passport';
    const { pdf } = await renderNotarizedPdf({
      original: await makePdf(1),
      fields: [{ type: 'name', page: 1, x: 0.1, y: 0.5, width: 0.8, height: 0.04, value: forged, imagePng: null }],
      certificate: { ...certificate, notaryName: 'Nora\r\nApproved by the State', signerNames: [forged] },
      audit: {
        ...audit,
        jobTitle: 'Refinance\nRecording: rec-0001',
        documentName: 'deed.pdf\nVerified',
        signers: [
          {
            ...(audit.signers[0] as AuditFacts['signers'][number]),
            name: forged,
            identityMethod: 'Not proven: bypassed (known to me\nIdentity: proven by passport)',
          },
        ],
        events: [
          {
            at: new Date('2026-03-14T15:05:00Z'),
            action: 'field.filled',
            actorName: forged,
            data: { type: 'signature', page: 1, documentName: 'deed.pdf\nVerified' },
          },
        ],
      },
    });
    const file = await writeTemporary(`lines-${Math.random().toString(16).slice(2)}.pdf`, pdf);
    const { stdout } = await run('pdftotext', ['-raw', '-enc', 'UTF-8', file, '-']);
    const lines = stdout.split('\n').map((line) => line.trim());
    for (const forgedLine of ['Identity: proven by passport', 'Approved by the State', 'Recording: rec-0001', 'Verified']) {
      expect(lines.filter((line) => line.startsWith(forgedLine))).toEqual([]);
    }
    expect(stdout).toContain('Sam Identity: proven by passport');
    expect(stdout).toContain('Refinance Recording: rec-0001');
  });

  it('refuses a field on a page the document does not have', async () => {
    const fields: FieldToBurn[] = [{ type: 'name', page: 4, x: 0.1, y: 0.5, width: 0.4, height: 0.03, value: 'Sam Signer', imagePng: null }];
    await expect(renderNotarizedPdf({ original: await makePdf(2), fields, certificate, audit })).rejects.toThrow(
      'A name field is on page 4, but the document has 2 pages.',
    );
  });

  it("draws the original's own form fields into the page and removes them, so they cannot be filled in after signing", async () => {
    const base = await PDFDocument.load(await makePdf(1));
    const buyer = base.getForm().createTextField('buyer');
    buyer.setText('Pat Buyer');
    buyer.addToPage(base.getPage(0), { x: 72, y: 400, width: 200, height: 24 });
    const { pdf } = await renderNotarizedPdf({ original: Buffer.from(await base.save()), fields: [], certificate, audit });
    const rendered = await PDFDocument.load(pdf);
    expect(rendered.getForm().getFields()).toHaveLength(0);
    expect(await extractText(pdf, 1, 1)).toContain('Pat Buyer');
  });

  it('draws each seal from the images and commission it is given, never from what an earlier seal prepared', async () => {
    // The same notary seals twice; between the seals their signature image and commission change.
    // Images and the seal are prepared once per process and reused (pdf-assets.ts): by content, so the change shows.
    const fields = (imagePng: Buffer): FieldToBurn[] => [
      { type: 'notary_signature', page: 1, x: 0.1, y: 0.6, width: 0.3, height: 0.1, value: null, imagePng },
      { type: 'notary_seal', page: 1, x: 0.65, y: 0.05, width: 0.25, height: 0.2, value: null, imagePng: null },
    ];
    const original = await makePdf(1);
    const first = await renderNotarizedPdf({ original, fields: fields(makePng(40, 20, [0, 0, 255])), certificate, audit });
    const again = await renderNotarizedPdf({ original, fields: fields(makePng(40, 20, [0, 0, 255])), certificate, audit });
    const renewed = { ...certificate, commissionNumber: '99887766-5', commissionExpiresOn: '2034-02-28' };
    const changed = await renderNotarizedPdf({ original, fields: fields(makePng(40, 20, [255, 0, 0])), certificate: renewed, audit });

    expect(await readPixel(first.pdf, 1, 0.25, 0.65)).toEqual([0, 0, 255]);
    expect(await readPixel(again.pdf, 1, 0.25, 0.65)).toEqual([0, 0, 255]);
    expect(await readPixel(changed.pdf, 1, 0.25, 0.65)).toEqual([255, 0, 0]);
    expect(await extractText(first.pdf, 1, 1)).toContain('Comm. No. 13245768-9');
    expect(await extractText(again.pdf, 1, 1)).toContain('Comm. No. 13245768-9');
    const changedSeal = await extractText(changed.pdf, 1, 1);
    expect(changedSeal).toContain('Comm. No. 99887766-5');
    expect(changedSeal).toContain('Expires 02/28/2034');
    expect(changedSeal).not.toContain('13245768-9');
    // The seal on the certificate page (a notarial act) is the renewed one too.
    const certificatePage = await extractText(changed.pdf, 2, 2);
    expect(certificatePage).toContain('Comm. No. 99887766-5');
    expect(certificatePage).not.toContain('Comm. No. 13245768-9');
  });

  it('names what it adds to a page so that no original can guess the name: a page that draws an undefined image never draws the signer’s (found by attack)', async () => {
    const signature = makePng(60, 20, [20, 30, 90]);
    const fields: FieldToBurn[] = [
      { type: 'initials', page: 1, x: 0.8, y: 0.9, width: 0.1, height: 0.05, value: null, imagePng: signature },
      { type: 'name', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.03, value: 'Sam Signer', imagePng: null },
    ];
    const input = { fields, certificate: { ...certificate, notarialFacts: notRecorded }, audit };
    // The original's page draws images it does not define, by the names a seal used to give (pdf-lib's
    // random names start from a fixed seed, and the first version of this seal counted X1, X2...).
    const guessed = ['X1', 'X2', 'X-9742682568', 'Helvetica-1', 'Helvetica-7098480789'];
    const base = await PDFDocument.load(await makePdf(1));
    const [page] = base.getPages();
    if (!page) throw new Error('a page expected');
    const draws = guessed
      .map((name) => (name.startsWith('X') ? `q 200 0 0 100 100 300 cm /${name} Do Q` : `BT /${name} 12 Tf 100 200 Td (guess) Tj ET`))
      .join('\n');
    page.node.addContentStream(base.context.register(base.context.flateStream(draws)));
    const original = Buffer.from(await base.save({ useObjectStreams: false }));
    const keysOf = async (pdf: Buffer) => {
      const document = await PDFDocument.load(pdf);
      return document.getPages().map((each) => {
        const resources = each.node.Resources();
        const names = (kind: string) => (resources?.lookupMaybe(PDFName.of(kind), PDFDict)?.keys() ?? []).map((key) => key.decodeText()).sort();
        return { fonts: names('Font'), xObjects: names('XObject') };
      });
    };
    const [own] = await keysOf(original);
    const undefinedNames = guessed.filter((name) => !own?.fonts.includes(name) && !own?.xObjects.includes(name));
    expect(undefinedNames).toEqual(expect.arrayContaining(['X1', 'X2', 'X-9742682568', 'Helvetica-1']));
    const first = await renderNotarizedPdf({ original, ...input });
    const second = await renderNotarizedPdf({ original, ...input });
    const [firstPage] = await keysOf(first.pdf);
    const [secondPage] = await keysOf(second.pdf);
    for (const name of undefinedNames) {
      expect(firstPage?.xObjects).not.toContain(name);
      expect(firstPage?.fonts).not.toContain(name);
    }
    // New names on every seal.
    expect(firstPage?.xObjects.length).toBeGreaterThan(0);
    expect(firstPage?.xObjects.filter((name) => secondPage?.xObjects.includes(name))).toEqual([]);
    // Sealing a sealed document again: each page keeps every name it had, and adds names of its own.
    const resealed = await renderNotarizedPdf({ original: first.pdf, ...input });
    const before = await keysOf(first.pdf);
    const after = await keysOf(resealed.pdf);
    for (const [index, each] of before.entries()) {
      expect(after[index]?.fonts).toEqual(expect.arrayContaining(each.fonts));
      expect(after[index]?.xObjects).toEqual(expect.arrayContaining(each.xObjects));
      expect(after[index]?.xObjects.length).toBeGreaterThan(each.xObjects.length);
    }
    expect(await extractText(resealed.pdf, 1, 1)).toContain('Sam Signer');
  });

  it('appends its changes to the original, whose bytes stay as they were, without object streams', async () => {
    const original = await makePdf(1);
    const { pdf, fullSaveReason } = await renderNotarizedPdf({ original, fields: [], certificate, audit });
    expect(fullSaveReason).toBeNull();
    expect(pdf.subarray(0, original.length).equals(original)).toBe(true);
    expect(pdf.subarray(original.length).includes('/ObjStm')).toBe(false);
    expect(pdf.subarray(-6).toString('latin1')).toBe('\n%%EOF');
  });
});
