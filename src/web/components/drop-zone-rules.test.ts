import { describe, expect, it } from 'vitest';
import { describeFileRules, getFileRefusal, sortFiles, toAcceptAttribute, type FileRules } from './drop-zone-rules.ts';

const pdfs: FileRules = {
  mimeTypes: ['application/pdf'],
  extensions: ['.pdf'],
  kind: 'a PDF',
  kindPlural: 'PDFs',
  maxBytes: 50 * 1024 * 1024,
  isMultiple: true,
};
const certificate: FileRules = {
  mimeTypes: ['application/x-pkcs12'],
  extensions: ['.p12', '.pfx'],
  kind: 'a .p12 or .pfx certificate file',
  kindPlural: 'certificate files',
  maxBytes: 100 * 1024,
  isMultiple: false,
};
const file = (name: string, type: string, size: number) => ({ name, type, size });

describe('drop zone rules', () => {
  it('says what the zone takes before anything is chosen', () => {
    expect(describeFileRules(pdfs)).toBe('PDFs up to 50 MB each.');
    expect(describeFileRules(certificate)).toBe('One file: a .p12 or .pfx certificate file up to 100 KB.');
    expect(describeFileRules({ ...pdfs, maxBytes: null })).toBe('PDFs.');
    expect(toAcceptAttribute(pdfs)).toBe('application/pdf,.pdf');
  });

  it('takes a file by its type or, when the browser gives none, by its extension in any case', () => {
    expect(getFileRefusal(file('deed.pdf', 'application/pdf', 1000), pdfs)).toBeNull();
    expect(getFileRefusal(file('KEY.P12', '', 1000), certificate)).toBeNull();
  });

  it('says why a file is refused, naming it', () => {
    expect(getFileRefusal(file('notes.txt', 'text/plain', 10), pdfs)).toBe('notes.txt is not a PDF.');
    expect(getFileRefusal(file('huge.pdf', 'application/pdf', 60 * 1024 * 1024), pdfs)).toBe('huge.pdf is 60 MB, larger than the 50 MB limit.');
    expect(getFileRefusal(file('blank.pdf', 'application/pdf', 0), pdfs)).toBe('blank.pdf is empty.');
  });

  it('keeps the good files of a mixed drop and says why the others were left out', () => {
    const good = file('deed.pdf', 'application/pdf', 1000);
    expect(sortFiles([good, file('photo.png', 'image/png', 1000)], pdfs)).toEqual({ accepted: [good], refusals: ['photo.png is not a PDF.'] });
  });

  it('refuses several files dropped on a zone that takes one', () => {
    const files = [file('a.p12', '', 10), file('b.p12', '', 10)];
    expect(sortFiles(files, certificate)).toEqual({ accepted: [], refusals: ['Drop one file at a time: 2 were dropped.'] });
  });
});
