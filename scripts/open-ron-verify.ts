import fs from 'node:fs';
import path from 'node:path';
import { formatBytes, formatReportText, verifyArchive, type RandomAccessSource } from '#shared/archive-verify/index.ts';

/**
 * `open-ron-verify <archive.zip>`: prints the report and exits 0 when every check holds, 1 when
 * anything fails, 2 when it was not given a ZIP file to check. Nothing goes over the network.
 */

interface Streams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

const usage = 'Usage: npx open-ron-verify <archive.zip>\nChecks a notary archive exported by Open RON, offline, and prints what holds and what does not.\n';

export async function runVerifyCommand(args: string[], streams: Streams): Promise<number> {
  const files = args.filter((argument) => !argument.startsWith('-'));
  if (args.includes('--help') || args.includes('-h')) {
    streams.stdout.write(usage);
    return 0;
  }
  if (files.length !== 1) {
    streams.stderr.write(`${files.length === 0 ? 'No archive was given.' : 'Give one archive at a time.'}\n${usage}`);
    return 2;
  }
  const file = path.resolve(files[0] as string);
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch {
    streams.stderr.write(`${file} cannot be opened: check the name and that you may read it.\n`);
    return 2;
  }
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    // A ZIP starts with a local file header (or, empty, with its end record).
    if (size < 22 || !(head.readUInt32LE(0) === 0x04034b50 || head.readUInt32LE(0) === 0x06054b50)) {
      streams.stderr.write(`${file} is not a ZIP archive. Give the .zip file the platform exported.\n`);
      return 2;
    }
    const source: RandomAccessSource = {
      size,
      read: async (offset, length) => {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        return new Uint8Array(buffer.buffer, buffer.byteOffset, bytesRead);
      },
    };
    const showProgress = Boolean(streams.stderr.isTTY);
    let lastShown = 0;
    const report = await verifyArchive(source, path.basename(file), {
      onProgress: ({ bytesRead, totalBytes }) => {
        if (!showProgress || Date.now() - lastShown < 200) return;
        lastShown = Date.now();
        streams.stderr.write(`\rRead ${formatBytes(bytesRead)} of ${formatBytes(totalBytes)}   `);
      },
    });
    if (showProgress) streams.stderr.write('\r\x1b[K');
    streams.stdout.write(formatReportText(report));
    return report.isValid ? 0 : 1;
  } finally {
    await handle.close();
  }
}
