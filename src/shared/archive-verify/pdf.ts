/**
 * Just enough of a PDF reader for signatures: every object found by scanning the file (a later
 * revision's copy of an object wins), the signature dictionaries with the exact offsets of their
 * /Contents, and the document security store (/DSS). Signed bytes are read from /ByteRange
 * directly, never through a library that rebuilds the document.
 */

export type PdfValue =
  | { type: 'number'; value: number }
  | { type: 'name'; value: string }
  | { type: 'string'; bytes: Uint8Array; start: number; end: number }
  | { type: 'array'; items: PdfValue[] }
  | { type: 'dict'; entries: Map<string, PdfValue>; stream: { start: number; end: number } | null }
  | { type: 'ref'; number: number; generation: number }
  | { type: 'boolean'; value: boolean }
  | { type: 'null' };

export class PdfError extends Error {}

const isWhite = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
const isDelimiter = (byte: number) =>
  byte === 0x28 ||
  byte === 0x29 ||
  byte === 0x3c ||
  byte === 0x3e ||
  byte === 0x5b ||
  byte === 0x5d ||
  byte === 0x7b ||
  byte === 0x7d ||
  byte === 0x2f ||
  byte === 0x25;
const isRegular = (byte: number) => !isWhite(byte) && !isDelimiter(byte);
const hexValue = (byte: number) =>
  byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : byte >= 0x41 && byte <= 0x46 ? byte - 0x37 : -1;

class Parser {
  constructor(
    readonly bytes: Uint8Array,
    public position: number,
  ) {}

  skipSpace(): void {
    const { bytes } = this;
    while (this.position < bytes.length) {
      const byte = bytes[this.position] as number;
      if (isWhite(byte)) this.position++;
      else if (byte === 0x25) while (this.position < bytes.length && bytes[this.position] !== 0x0a && bytes[this.position] !== 0x0d) this.position++;
      else break;
    }
  }

  readWord(): string {
    const start = this.position;
    while (this.position < this.bytes.length && isRegular(this.bytes[this.position] as number)) this.position++;
    return String.fromCharCode(...this.bytes.subarray(start, this.position));
  }

  peekWord(): string {
    const saved = this.position;
    this.skipSpace();
    const word = this.readWord();
    this.position = saved;
    return word;
  }

  readValue(depth = 0): PdfValue {
    if (depth > 64) throw new PdfError('objects nest too deeply');
    this.skipSpace();
    const { bytes } = this;
    const byte = bytes[this.position];
    if (byte === undefined) throw new PdfError('the file ends inside an object');
    if (byte === 0x2f) {
      this.position++;
      const raw = this.readWord();
      return { type: 'name', value: raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) };
    }
    if (byte === 0x3c && bytes[this.position + 1] === 0x3c) return this.readDictionary(depth);
    if (byte === 0x3c) return this.readHexString();
    if (byte === 0x28) return this.readLiteralString();
    if (byte === 0x5b) {
      this.position++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (bytes[this.position] === 0x5d) {
          this.position++;
          return { type: 'array', items };
        }
        items.push(this.readValue(depth + 1));
      }
    }
    const word = this.readWord();
    if (word === '') throw new PdfError(`an unexpected character at byte ${this.position}`);
    if (word === 'true' || word === 'false') return { type: 'boolean', value: word === 'true' };
    if (word === 'null') return { type: 'null' };
    const number = Number(word);
    if (Number.isNaN(number)) throw new PdfError(`an unexpected word at byte ${this.position}`);
    // "12 0 R" is a reference: look ahead without consuming when it is not.
    if (/^\d+$/.test(word)) {
      const saved = this.position;
      this.skipSpace();
      const generation = this.readWord();
      this.skipSpace();
      if (/^\d+$/.test(generation) && this.readWord() === 'R') return { type: 'ref', number, generation: Number(generation) };
      this.position = saved;
    }
    return { type: 'number', value: number };
  }

  readDictionary(depth: number): PdfValue {
    this.position += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipSpace();
      if (this.bytes[this.position] === 0x3e && this.bytes[this.position + 1] === 0x3e) {
        this.position += 2;
        return { type: 'dict', entries, stream: null };
      }
      const key = this.readValue(depth + 1);
      if (key.type !== 'name') throw new PdfError(`a dictionary key is not a name at byte ${this.position}`);
      entries.set(key.value, this.readValue(depth + 1));
    }
  }

  readHexString(): PdfValue {
    const start = this.position;
    this.position++;
    const nibbles: number[] = [];
    while (this.position < this.bytes.length && this.bytes[this.position] !== 0x3e) {
      const value = hexValue(this.bytes[this.position] as number);
      if (value >= 0) nibbles.push(value);
      else if (!isWhite(this.bytes[this.position] as number)) throw new PdfError(`a hexadecimal string holds another character at byte ${this.position}`);
      this.position++;
    }
    this.position++;
    if (nibbles.length % 2) nibbles.push(0);
    const result = new Uint8Array(nibbles.length / 2);
    for (let index = 0; index < result.length; index++) result[index] = ((nibbles[index * 2] as number) << 4) | (nibbles[index * 2 + 1] as number);
    return { type: 'string', bytes: result, start, end: this.position };
  }

  readLiteralString(): PdfValue {
    const start = this.position;
    this.position++;
    const out: number[] = [];
    let depth = 1;
    const { bytes } = this;
    while (this.position < bytes.length) {
      const byte = bytes[this.position++] as number;
      if (byte === 0x5c) {
        const next = bytes[this.position++] as number;
        const escapes: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };
        if (escapes[next] !== undefined) out.push(escapes[next]);
        else if (next >= 0x30 && next <= 0x37) {
          let octal = next - 0x30;
          for (let count = 0; count < 2 && (bytes[this.position] as number) >= 0x30 && (bytes[this.position] as number) <= 0x37; count++)
            octal = octal * 8 + ((bytes[this.position++] as number) - 0x30);
          out.push(octal & 0xff);
        } else if (next === 0x0d || next === 0x0a) {
          if (next === 0x0d && bytes[this.position] === 0x0a) this.position++;
        } else out.push(next);
        continue;
      }
      if (byte === 0x28) depth++;
      if (byte === 0x29 && --depth === 0) break;
      out.push(byte);
    }
    return { type: 'string', bytes: Uint8Array.from(out), start, end: this.position };
  }
}

export interface PdfObject {
  number: number;
  generation: number;
  offset: number;
  /** Where the object was first defined: earlier than `offset` when a later revision replaced it. */
  firstOffset: number;
  value: PdfValue;
}

export interface PdfFile {
  bytes: Uint8Array;
  /** The latest copy of each object, by "number generation". */
  objects: Map<string, PdfObject>;
  /** Byte offsets just after each %%EOF: where each revision ends. */
  revisionEnds: number[];
}

const objectHeader = /(\d+)[ \t\r\n\f\0]+(\d+)[ \t\r\n\f\0]+obj\b/g;

export function readPdf(bytes: Uint8Array): PdfFile {
  const text = new TextDecoder('latin1').decode(bytes);
  if (!text.startsWith('%PDF-')) throw new PdfError('it does not start like a PDF');
  const objects = new Map<string, PdfObject>();
  objectHeader.lastIndex = 0;
  for (let match = objectHeader.exec(text); match; match = objectHeader.exec(text)) {
    const parser = new Parser(bytes, match.index + match[0].length);
    let value: PdfValue;
    try {
      value = parser.readValue();
    } catch {
      continue;
    }
    if (value.type === 'dict' && parser.peekWord() === 'stream') {
      parser.skipSpace();
      parser.position += 'stream'.length;
      if (bytes[parser.position] === 0x0d) parser.position++;
      if (bytes[parser.position] === 0x0a) parser.position++;
      const start = parser.position;
      const length = value.entries.get('Length');
      let end = length?.type === 'number' ? start + length.value : -1;
      if (
        end < 0 ||
        text
          .slice(end, end + 12)
          .trimStart()
          .slice(0, 9) !== 'endstream'
      ) {
        end = text.indexOf('endstream', start);
        if (end < 0) continue;
        // The stream's data ends before the end-of-line that precedes "endstream".
        if (bytes[end - 1] === 0x0a) end--;
        if (bytes[end - 1] === 0x0d) end--;
      }
      value.stream = { start, end };
      objectHeader.lastIndex = end;
    } else objectHeader.lastIndex = parser.position;
    const key = `${match[1]} ${match[2]}`;
    objects.set(key, {
      number: Number(match[1]),
      generation: Number(match[2]),
      offset: match.index,
      firstOffset: objects.get(key)?.firstOffset ?? match.index,
      value,
    });
  }
  const revisionEnds: number[] = [];
  for (let index = text.indexOf('%%EOF'); index >= 0; index = text.indexOf('%%EOF', index + 5)) {
    let end = index + 5;
    if (bytes[end] === 0x0d) end++;
    if (bytes[end] === 0x0a) end++;
    revisionEnds.push(end);
  }
  return { bytes, objects, revisionEnds };
}

export function resolve(pdf: PdfFile, value: PdfValue | undefined): PdfValue | undefined {
  if (value?.type !== 'ref') return value;
  return pdf.objects.get(`${value.number} ${value.generation}`)?.value;
}

export function getEntry(pdf: PdfFile, dict: PdfValue | undefined, key: string): PdfValue | undefined {
  const resolved = resolve(pdf, dict);
  return resolved?.type === 'dict' ? resolve(pdf, resolved.entries.get(key)) : undefined;
}

export function getName(pdf: PdfFile, dict: PdfValue | undefined, key: string): string | null {
  const value = getEntry(pdf, dict, key);
  return value?.type === 'name' ? value.value : null;
}

/** A stream's decoded data (no filter or FlateDecode: what a DSS holds). */
export async function readStream(pdf: PdfFile, value: PdfValue | undefined): Promise<Uint8Array> {
  const stream = resolve(pdf, value);
  if (stream?.type !== 'dict' || !stream.stream) throw new PdfError('a stream is missing');
  const raw = pdf.bytes.subarray(stream.stream.start, stream.stream.end);
  const filter = resolve(pdf, stream.entries.get('Filter'));
  const filters =
    filter?.type === 'name' ? [filter.value] : filter?.type === 'array' ? filter.items.map((item) => (item.type === 'name' ? item.value : '?')) : [];
  if (filters.length === 0) return raw;
  if (filters.length === 1 && filters[0] === 'FlateDecode') {
    const decompressed = new Blob([raw.slice()]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Uint8Array(await new Response(decompressed).arrayBuffer());
  }
  throw new PdfError(`a stream uses the filter ${filters.join(', ')}, which this verifier does not read`);
}

export interface PdfSignatureField {
  objectKey: string;
  /** "Sig" or "DocTimeStamp". */
  type: string | null;
  subFilter: string | null;
  byteRange: number[];
  contents: Uint8Array;
  contentsStart: number;
  contentsEnd: number;
  /** /M as written. */
  claimedTime: Date | null;
  name: string | null;
  reason: string | null;
}

/** "D:20261127140200+00'00'" to a Date. */
export function parsePdfDate(bytes: Uint8Array): Date | null {
  const text = String.fromCharCode(...bytes);
  const match = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(text);
  if (!match) return null;
  const utc = Date.UTC(Number(match[1]), Number(match[2] ?? 1) - 1, Number(match[3] ?? 1), Number(match[4] ?? 0), Number(match[5] ?? 0), Number(match[6] ?? 0));
  const zone = match[7];
  if (!zone || zone === 'Z') return new Date(utc);
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.replace(/[^0-9]/g, '');
  return new Date(utc - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000);
}

function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    let text = '';
    for (let index = 2; index + 1 < bytes.length; index += 2) text += String.fromCharCode(((bytes[index] as number) << 8) | (bytes[index + 1] as number));
    return text;
  }
  return String.fromCharCode(...bytes);
}

/** Every dictionary with /ByteRange and /Contents (signatures and document timestamps), in the order their signed ranges end. */
export function findSignatureFields(pdf: PdfFile): PdfSignatureField[] {
  const fields: PdfSignatureField[] = [];
  for (const [objectKey, object] of pdf.objects) {
    const value = object.value;
    if (value.type !== 'dict') continue;
    const byteRange = resolve(pdf, value.entries.get('ByteRange'));
    const contents = value.entries.get('Contents');
    if (byteRange?.type !== 'array' || contents?.type !== 'string') continue;
    const string = (key: string) => {
      const entry = resolve(pdf, value.entries.get(key));
      return entry?.type === 'string' ? entry.bytes : null;
    };
    const claimed = string('M');
    fields.push({
      objectKey,
      type: getName(pdf, value, 'Type'),
      subFilter: getName(pdf, value, 'SubFilter'),
      byteRange: byteRange.items.map((item) => (item.type === 'number' ? item.value : Number.NaN)),
      contents: contents.bytes,
      contentsStart: contents.start,
      contentsEnd: contents.end,
      claimedTime: claimed ? parsePdfDate(claimed) : null,
      name: string('Name') ? decodeText(string('Name') as Uint8Array) : null,
      reason: string('Reason') ? decodeText(string('Reason') as Uint8Array) : null,
    });
  }
  const endOf = (field: PdfSignatureField) => (field.byteRange[2] ?? 0) + (field.byteRange[3] ?? 0);
  return fields.sort((left, right) => endOf(left) - endOf(right));
}

export interface DocumentSecurityStore {
  /** Offset of the object holding the DSS dictionary (a document timestamp must cover it for B-LTA). */
  offset: number;
  certificates: Uint8Array[];
  ocsps: Uint8Array[];
  crls: Uint8Array[];
}

/** The catalog's /DSS, from the latest catalog in the file. */
export async function readDocumentSecurityStore(pdf: PdfFile): Promise<DocumentSecurityStore | null> {
  let catalog: PdfObject | null = null;
  for (const object of pdf.objects.values()) {
    if (getName(pdf, object.value, 'Type') === 'Catalog' && (!catalog || object.offset > catalog.offset)) catalog = object;
  }
  if (!catalog || catalog.value.type !== 'dict') return null;
  const reference = catalog.value.entries.get('DSS');
  if (!reference) return null;
  const dss = resolve(pdf, reference);
  if (dss?.type !== 'dict') throw new PdfError('the catalog names a /DSS that is not there');
  const offset = reference.type === 'ref' ? (pdf.objects.get(`${reference.number} ${reference.generation}`)?.offset ?? catalog.offset) : catalog.offset;
  const readAll = async (key: string) => {
    const list = resolve(pdf, dss.entries.get(key));
    if (!list) return [];
    if (list.type !== 'array') throw new PdfError(`the /DSS ${key} entry is not an array`);
    return Promise.all(list.items.map((item) => readStream(pdf, item)));
  };
  return { offset, certificates: await readAll('Certs'), ocsps: await readAll('OCSPs'), crls: await readAll('CRLs') };
}
