import { randomBytes } from 'node:crypto';
import type { SanitisedDocument } from './safe-viewer.service.ts';

/**
 * The safe viewer page (decision 053), written by the server rather than the React app: it must
 * run in an opaque origin (CSP sandbox without allow-same-origin), so it can read no cookie and
 * call no API, and it loads nothing but pdf.js and the sanitised copies it carries.
 */

export const viewerAssetsPath = '/api/safe-viewer/assets';

/** The page's own headers; security-headers.ts keeps this CSP and referrer policy for sandboxed pages. */
export function viewerPageHeaders(nonce: string): Record<string, string> {
  const csp = [
    'sandbox allow-scripts',
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    'img-src data: blob:',
    'font-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'content-type': 'text/html; charset=utf-8',
  };
}

export const createNonce = () => randomBytes(18).toString('base64');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const styles = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; }
  body { margin: 0; background: #eef2f6; }
  header { background: #00335b; color: #fff; padding: 12px 16px; }
  header h1 { margin: 0; font-size: 1.15rem; }
  header p { margin: 4px 0 0; font-size: 0.9rem; color: #dbe7f3; }
  main { max-width: 960px; margin: 0 auto; padding: 16px; }
  section { margin-bottom: 24px; }
  h2 { color: #1c4e80; font-size: 1rem; margin: 0 0 8px; overflow-wrap: anywhere; }
  canvas { display: block; width: 100%; max-width: 100%; height: auto; margin: 0 0 12px; background: #fff; box-shadow: 0 1px 3px rgba(0, 0, 0, 0.25); }
  .status { font-size: 0.95rem; color: #1c4e80; }
  .problem { color: #8a1c1c; font-weight: 600; }
`;

/** The renderer: pdf.js on the main thread (its worker module loaded first), no scripting, no annotation layer. */
const viewerScript = `
import * as pdfjs from '${viewerAssetsPath}/pdf.min.mjs';
import '${viewerAssetsPath}/pdf.worker.min.mjs';

const status = document.getElementById('status');
const decode = (text) => {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
};
let shown = 0;
try {
  for (const source of document.querySelectorAll('script[type="application/x-pdf-base64"]')) {
    const section = document.getElementById(source.dataset.section);
    const pdf = await pdfjs.getDocument({ data: decode(source.textContent.trim()), isEvalSupported: false, enableXfa: false, disableAutoFetch: true, useWorkerFetch: false }).promise;
    for (let number = 1; number <= pdf.numPages; number += 1) {
      const page = await pdf.getPage(number);
      const viewport = page.getViewport({ scale: 1.5 });
      const canvas = document.createElement('canvas');
      canvas.width = Math.ceil(viewport.width);
      canvas.height = Math.ceil(viewport.height);
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', 'Page ' + number + ' of ' + pdf.numPages + ', ' + section.dataset.name);
      canvas.dataset.page = String(number);
      section.append(canvas);
      await page.render({ canvas, viewport, annotationMode: pdfjs.AnnotationMode.ENABLE }).promise;
      shown += 1;
    }
  }
  status.textContent = shown === 1 ? '1 page shown.' : shown + ' pages shown.';
  document.body.dataset.state = 'ready';
} catch (error) {
  status.textContent = 'This document could not be shown.';
  status.classList.add('problem');
  document.body.dataset.state = 'failed';
}
`;

const notice = 'A safe copy: scripts, form actions, links and attached files were removed. Nothing here can act on your account.';

export function renderViewerPage(nonce: string, jobTitle: string, documents: SanitisedDocument[]): string {
  const sections = documents
    .map(
      (document, index) => `
    <section id="document-${index}" data-name="${escapeHtml(document.name)}" aria-labelledby="document-${index}-title">
      <h2 id="document-${index}-title">${escapeHtml(document.name)}</h2>
      <script type="application/x-pdf-base64" data-section="document-${index}">${Buffer.from(document.bytes.buffer, document.bytes.byteOffset, document.bytes.byteLength).toString('base64')}</script>
    </section>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Safe viewer: ${escapeHtml(jobTitle)}</title>
  <style nonce="${nonce}">${styles}</style>
</head>
<body data-state="loading">
  <header>
    <h1>Safe viewer: ${escapeHtml(jobTitle)}</h1>
    <p>${notice}</p>
  </header>
  <main>
    <p id="status" class="status" role="status">Loading pages…</p>${sections}
  </main>
  <script type="module" nonce="${nonce}">${viewerScript}</script>
</body>
</html>`;
}

/** The page for a link that cannot be opened: the sentence, and where to go instead. No script. */
export function renderViewerProblemPage(nonce: string, message: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Safe viewer</title>
  <style nonce="${nonce}">${styles}</style>
</head>
<body>
  <header><h1>Safe viewer</h1></header>
  <main><p class="problem" role="alert">${escapeHtml(message)}</p><p>Close this tab and go back to the job page.</p></main>
</body>
</html>`;
}
