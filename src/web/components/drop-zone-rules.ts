import { formatSize } from '#web/lib/format-size.ts';

/** What a drop zone takes. */
export interface FileRules {
  /** MIME types accepted ("application/pdf"); a file matching one of them or one of the extensions is taken. */
  mimeTypes: readonly string[];
  /** Extensions accepted, with their dot (".pdf"); browsers give some files (.p12) no type. */
  extensions: readonly string[];
  /** The kind of file with its article, as in "is not a PDF": "a PDF", "a PNG or JPEG image". */
  kind: string;
  /** The kinds in the plural, as in "PDFs up to 50 MB each": "PDFs", "PNG or JPEG images". */
  kindPlural: string;
  /** The largest file taken, in bytes; null when the caller does not know yet. */
  maxBytes: number | null;
  /** Whether several files may be given at once. */
  isMultiple: boolean;
}

/** The `accept` attribute of the file input for these rules. */
export function toAcceptAttribute(rules: FileRules): string {
  return [...rules.mimeTypes, ...rules.extensions].join(',');
}

/** What the zone takes, said before anything is chosen: "PDFs up to 50 MB each." */
export function describeFileRules(rules: FileRules): string {
  const size = rules.maxBytes === null ? '' : ` up to ${formatSize(rules.maxBytes)}${rules.isMultiple ? ' each' : ''}`;
  return `${rules.isMultiple ? rules.kindPlural : `One file: ${rules.kind}`}${size}.`;
}

/** Why this file is refused, or null when it is taken. */
export function getFileRefusal(file: { name: string; type: string; size: number }, rules: FileRules): string | null {
  const name = file.name.toLowerCase();
  const isKnownType = rules.mimeTypes.includes(file.type) || rules.extensions.some((extension) => name.endsWith(extension.toLowerCase()));
  if (!isKnownType) return `${file.name} is not ${rules.kind}.`;
  if (file.size === 0) return `${file.name} is empty.`;
  if (rules.maxBytes !== null && file.size > rules.maxBytes)
    return `${file.name} is ${formatSize(file.size)}, larger than the ${formatSize(rules.maxBytes)} limit.`;
  return null;
}

/** Splits what was dropped or chosen into the files taken and the reasons the others were not. */
export function sortFiles<F extends { name: string; type: string; size: number }>(
  files: readonly F[],
  rules: FileRules,
): { accepted: F[]; refusals: string[] } {
  if (!rules.isMultiple && files.length > 1) return { accepted: [], refusals: [`Drop one file at a time: ${files.length} were dropped.`] };
  const accepted: F[] = [];
  const refusals: string[] = [];
  for (const file of files) {
    const refusal = getFileRefusal(file, rules);
    if (refusal) refusals.push(refusal);
    else accepted.push(file);
  }
  return { accepted, refusals };
}
