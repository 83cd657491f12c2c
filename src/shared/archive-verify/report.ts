/** One thing the verifier checked, as a sentence a person can read, naming the file it is about. */
export interface Finding {
  ok: boolean;
  file: string;
  sentence: string;
}

export interface ArchiveReport {
  isValid: boolean;
  /** One sentence: passed, or how many problems. */
  summary: string;
  findings: Finding[];
  /** The platform CA's SHA-256 fingerprint as certificate viewers print it, for a person to compare with the platform's. */
  platformCaFingerprint: string | null;
  fileCount: number;
  totalBytes: number;
}

export interface FileGroup {
  file: string;
  problems: Finding[];
  passed: Finding[];
}

/** Findings grouped by file, files with problems first, each group's problems before what held. */
export function groupFindings(findings: Finding[]): FileGroup[] {
  const groups = new Map<string, FileGroup>();
  for (const finding of findings) {
    let group = groups.get(finding.file);
    if (!group) {
      group = { file: finding.file, problems: [], passed: [] };
      groups.set(finding.file, group);
    }
    (finding.ok ? group.passed : group.problems).push(finding);
  }
  const list = [...groups.values()];
  return [...list.filter((group) => group.problems.length > 0), ...list.filter((group) => group.problems.length === 0)];
}

/** The report as plain text (the command line's output). */
export function formatReportText(report: ArchiveReport): string {
  const lines = [report.isValid ? 'PASSED' : 'FAILED', report.summary, ''];
  if (report.platformCaFingerprint) lines.push(`Platform CA SHA-256 fingerprint: ${report.platformCaFingerprint}`, '');
  for (const group of groupFindings(report.findings)) {
    lines.push(group.file);
    for (const finding of [...group.problems, ...group.passed]) lines.push(`  ${finding.ok ? 'ok     ' : 'PROBLEM'}  ${finding.sentence}`);
    lines.push('');
  }
  lines.push(report.isValid ? 'PASSED' : 'FAILED', report.summary);
  return `${lines.join('\n')}\n`;
}
