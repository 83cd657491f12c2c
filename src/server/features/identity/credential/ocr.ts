import path from 'node:path';
import { createRequire } from 'node:module';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

/**
 * Text recognition with tesseract.js. The worker script, the wasm core and the English model all
 * come from node_modules; nothing is downloaded or cached on disk. Two readers are kept: one for a
 * passport's machine-readable zone (its alphabet only, one block) and one for printed text.
 */

const require = createRequire(import.meta.url);
const zoneAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

export type OcrKind = 'zone' | 'text';

const workers = new Map<OcrKind, Promise<Worker>>();

async function startWorker(kind: OcrKind): Promise<Worker> {
  const worker = await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int'),
    gzip: true,
    cacheMethod: 'none',
    workerPath: require.resolve('tesseract.js/src/worker-script/node/index.js'),
    corePath: path.dirname(require.resolve('tesseract.js-core/package.json')),
  });
  // The image is scaled to a known size, so its DPI is fixed rather than guessed (and warned about) per image.
  await worker.setParameters(
    kind === 'zone'
      ? { tessedit_char_whitelist: zoneAlphabet, tessedit_pageseg_mode: PSM.SINGLE_BLOCK, user_defined_dpi: '300' }
      : { tessedit_pageseg_mode: PSM.SPARSE_TEXT, user_defined_dpi: '300' },
  );
  return worker;
}

/** One worker of each kind for the process (or the analysis thread): loading the model takes most of a second. */
function getWorker(kind: OcrKind): Promise<Worker> {
  let worker = workers.get(kind);
  if (!worker) {
    worker = startWorker(kind);
    workers.set(kind, worker);
    worker.catch(() => workers.delete(kind));
  }
  return worker;
}

let queue: Promise<unknown> = Promise.resolve();

/** One recognition at a time: a worker holds one image, and concurrent calls would share it. */
export function recognizeText(image: Buffer, kind: OcrKind): Promise<string> {
  const run = queue.then(async () => (await (await getWorker(kind)).recognize(image)).data.text);
  queue = run.catch(() => undefined);
  return run;
}

/** Stops the OCR workers (tests, shutdown); the next read starts new ones. */
export async function stopOcr(): Promise<void> {
  await queue;
  const pending = [...workers.values()];
  workers.clear();
  for (const worker of pending) await (await worker.catch(() => null))?.terminate();
}
