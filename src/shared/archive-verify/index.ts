export { verifyArchive, manifestPath, manifestSignaturePath, type VerifyProgress, type VerifyOptions } from './verify-archive.ts';
export { formatReportText, groupFindings, type ArchiveReport, type Finding, type FileGroup } from './report.ts';
export { createBlobSource, createMemorySource, type RandomAccessSource } from './zip.ts';
export { formatBytes } from './words.ts';
