/**
 * The Content-Disposition of a download under a name people gave it: everything but letters, digits
 * and a few safe marks becomes `_`, so no quote, newline or path reaches the header.
 */
export function contentDisposition(fileName: string): string {
  return `attachment; filename="${fileName.replace(/[^\w.,()\- ]/g, '_')}"`;
}
