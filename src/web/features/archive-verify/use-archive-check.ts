import { useRef, useState } from 'react';
import { createBlobSource, verifyArchive, type ArchiveReport } from '#shared/archive-verify/index.ts';

export type ArchiveCheck =
  | { state: 'idle' }
  | { state: 'checking'; fileName: string; bytesRead: number; totalBytes: number }
  | { state: 'done'; fileName: string; report: ArchiveReport }
  | { state: 'failed'; fileName: string; message: string };

/**
 * Checks an archive in this browser: the file is read in slices (File.slice), never uploaded and
 * never held whole. A second file chosen while one is being checked replaces it.
 */
export function useArchiveCheck() {
  const [check, setCheck] = useState<ArchiveCheck>({ state: 'idle' });
  const run = useRef(0);

  const start = async (file: File) => {
    const current = ++run.current;
    setCheck({ state: 'checking', fileName: file.name, bytesRead: 0, totalBytes: file.size });
    let lastShown = 0;
    try {
      const report = await verifyArchive(createBlobSource(file), file.name, {
        onProgress: ({ bytesRead, totalBytes }) => {
          if (current !== run.current) throw new Error('replaced');
          // A re-render per 4 MB chunk is plenty; the last one always shows.
          const now = performance.now();
          if (now - lastShown < 100 && bytesRead < totalBytes) return;
          lastShown = now;
          setCheck({ state: 'checking', fileName: file.name, bytesRead, totalBytes });
        },
      });
      if (current === run.current) setCheck({ state: 'done', fileName: file.name, report });
    } catch (error) {
      if (current !== run.current) return;
      setCheck({
        state: 'failed',
        fileName: file.name,
        message: `${file.name} could not be read: ${error instanceof Error ? error.message : 'the browser refused to read it'}. Choose the file again.`,
      });
    }
  };

  return { check, start };
}
