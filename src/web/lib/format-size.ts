/** A file size as people read it: KB below a megabyte, MB with one decimal above ("50 MB", "1.5 MB"). */
export function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

export function formatPageCount(count: number): string {
  return `${count} page${count === 1 ? '' : 's'}`;
}
