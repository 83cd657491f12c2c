import { groupFindings, type ArchiveReport } from '#shared/archive-verify/index.ts';

/** The verdict first, then the findings grouped by file, files with problems (and each file's problems) first. */
export function ArchiveReportView({ fileName, report }: { fileName: string; report: ArchiveReport }) {
  const problemCount = report.findings.filter((finding) => !finding.ok).length;
  const groups = groupFindings(report.findings);
  return (
    <section className="stack archive-report" aria-labelledby="archive-verdict">
      <div className={`alert ${report.isValid ? 'success' : 'error'}`} role={report.isValid ? 'status' : 'alert'}>
        <h2 id="archive-verdict" className="archive-verdict">
          {report.isValid ? 'Passed' : `${problemCount} ${problemCount === 1 ? 'problem' : 'problems'} found`}
        </h2>
        <p>
          <strong>{fileName}</strong>: {report.summary}
        </p>
      </div>
      {report.platformCaFingerprint ? (
        <p>
          The platform certificate authority in this archive has the SHA-256 fingerprint <code className="fingerprint">{report.platformCaFingerprint}</code>.
          Compare it with the fingerprint shown on the platform’s Verify page: if they differ, the archive was made with another authority.
        </p>
      ) : null}
      <ul className="archive-files" aria-label="Findings by file">
        {groups.map((group) => (
          <li key={group.file} className={group.problems.length > 0 ? 'has-problems' : undefined}>
            <h3 className="archive-file-name">
              <code>{group.file}</code>
              <span className="archive-file-verdict">
                {group.problems.length > 0 ? ` ${group.problems.length} ${group.problems.length === 1 ? 'problem' : 'problems'}` : ' checked, no problem'}
              </span>
            </h3>
            <ul>
              {[...group.problems, ...group.passed].map((finding, index) => (
                <li key={index} className={finding.ok ? 'finding-ok' : 'finding-problem'}>
                  <span className="finding-mark">{finding.ok ? 'Checked: ' : 'Problem: '}</span>
                  {finding.sentence}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
