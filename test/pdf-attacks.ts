/**
 * Hostile PDFs found by attacking the bounds of decision 062: each is small, and read without those
 * bounds it held the event loop for seconds and grew the process by hundreds of MB or more.
 */
/** A PDF of one page plus the objects given (number -> body parts), with a classic cross-reference table. */
export function buildPdfWith(extra: Record<number, (string | Uint8Array)[]>): Buffer {
  const parts: Buffer[] = [];
  const offsets: Record<number, number> = {};
  let length = 0;
  const push = (part: string | Uint8Array) => {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part);
    parts.push(bytes);
    length += bytes.length;
  };
  const object = (number: number, body: (string | Uint8Array)[]) => {
    offsets[number] = length;
    for (const part of [`${number} 0 obj\n`, ...body, '\nendobj\n']) push(part);
  };
  push('%PDF-1.7\n');
  object(1, ['<< /Type /Catalog /Pages 2 0 R >>']);
  object(2, ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>']);
  object(3, ['<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>']);
  for (const [number, body] of Object.entries(extra)) object(Number(number), body);
  const size = Math.max(...Object.keys(offsets).map(Number)) + 1;
  const xref = length;
  let entries = '';
  for (let index = 1; index < size; index += 1) {
    entries += offsets[index] === undefined ? '0000000000 65535 f \n' : `${String(offsets[index]).padStart(10, '0')} 00000 n \n`;
  }
  push(`xref\n0 ${size}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

export const streamObject = (dict: string, data: Uint8Array) => [`<< ${dict} /Length ${data.length} >>\nstream\n`, data, '\nendstream'];

/**
 * A zlib stream of ONE dynamic-Huffman deflate block: back-references of 258 bytes at distance 1, two
 * bits each (~1032x), and no literal before them. Node's zlib refuses it at once ("invalid distance too
 * far back"), so decodeBoundedStream falls back to pdf-lib's FlateStream, whose readBlock decodes a whole
 * block in one call (reading buffer[-1] as 0) however few bytes getBytes asked for: the 64 KB chunks
 * come after the whole block is in memory.
 */
export function oneBlockFlateBomb(unpackedBytes: number): Buffer {
  const bits: number[] = [];
  const put = (value: number, count: number) => {
    for (let index = 0; index < count; index += 1) bits.push((value >> index) & 1);
  };
  put(1, 1); // last block
  put(2, 2); // dynamic Huffman codes
  put(29, 5); // 286 literal/length codes
  put(0, 5); // 1 distance code
  put(14, 4); // 18 code-length codes
  // Code-length code lengths in their stored order (16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1): 18 and 1 have one bit each.
  for (const symbol of [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]) put(symbol === 18 || symbol === 1 ? 1 : 0, 3);
  // Canonical codes: code-length symbol 1 -> bit 0, 18 -> bit 1. Lengths: 256 zeros, 256 -> 1, 28 zeros, 285 -> 1, distance 0 -> 1.
  const zeros = (count: number) => {
    bits.push(1);
    put(count - 11, 7);
  };
  zeros(138);
  zeros(118);
  bits.push(0); // literal/length 256 (end of block): length 1, code 0
  zeros(28);
  bits.push(0); // literal/length 285 (length 258): length 1, code 1
  bits.push(0); // distance 0 (distance 1): length 1, code 0
  let matches = Math.ceil(unpackedBytes / 258);
  while (bits.length % 8 !== 0) {
    bits.push(1, 0); // one match: 285 then distance 0
    matches -= 1;
  }
  const head = Buffer.alloc(bits.length / 8);
  bits.forEach((bit, index) => {
    if (bit) head[index >> 3]! |= 1 << (index & 7);
  });
  // Four matches a byte (bits 1 0 1 0 1 0 1 0, least significant first), then the end of the block (bit 0).
  const body = Buffer.alloc(Math.ceil(matches / 4), 0x55);
  return Buffer.concat([Buffer.from([0x78, 0x9c]), head, body, Buffer.from([0, 0, 0, 0, 0])]);
}
