import { PDFDocument, StandardFonts, ParseSpeeds } from 'pdf-lib';
import { IncrementalPdf } from '#server/providers/signing/incremental.ts';
async function make(n: number, objs: boolean) {
  const pdf = await PDFDocument.create(); const font = await pdf.embedFont(StandardFonts.TimesRoman);
  const line = 'The Grantor conveys to the Grantee the property described in Exhibit A, with all rights and appurtenances.';
  for (let i = 0; i < n; i++) { const p = pdf.addPage([612, 792]); for (let r = 0; r < 45; r++) p.drawText(`${r}. ${line}`, { x: 72, y: 700 - r * 13.5, size: 9.5, font }); }
  return Buffer.from(await pdf.save({ useObjectStreams: objs }));
}
const cpu = async (f: () => Promise<unknown>, n = 300) => { for (let i = 0; i < 30; i++) await f(); const s = process.cpuUsage(); for (let i = 0; i < n; i++) await f(); const u = process.cpuUsage(s); return ((u.user + u.system) / 1000 / n).toFixed(3); };
for (const [n, objs] of [[10, false], [10, true]] as const) {
  const o = await make(n, objs);
  const load = await cpu(() => PDFDocument.load(o, { updateMetadata: false, parseSpeed: ParseSpeeds.Fast }));
  const bare = await cpu(async () => (await PDFDocument.load(o, { updateMetadata: false, parseSpeed: ParseSpeeds.Fast })).save({ useObjectStreams: false, objectsPerTick: 1500 }));
  const iload = await cpu(() => IncrementalPdf.load(o));
  const inc0 = await cpu(async () => { const d = await IncrementalPdf.load(o); return d.save(); });
  const incPages = await cpu(async () => { const d = await IncrementalPdf.load(o); d.document.getPages(); return d.save(); });
  console.log(n, objs, { load, bare, iload, inc0, incPages });
}
