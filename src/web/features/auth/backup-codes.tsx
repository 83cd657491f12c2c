import { useState } from 'react';
import { FormAlert } from '#web/components/field.tsx';

const downloadName = 'open-ron-backup-codes.txt';

function toText(codes: readonly string[]): string {
  return ['Open RON backup codes. Each works once, in place of an authenticator code.', '', ...codes, ''].join('\n');
}

/** New backup codes, shown once: the list, Copy and Download. */
export function BackupCodes({ codes }: { codes: readonly string[] }) {
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; message: string } | null>(null);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(toText(codes));
      setNotice({ tone: 'success', message: 'Backup codes copied to the clipboard.' });
    } catch {
      setNotice({ tone: 'error', message: 'This browser did not allow copying. Select the codes and copy them, or download them.' });
    }
  };

  const download = () => {
    const url = URL.createObjectURL(new Blob([toText(codes)], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = downloadName;
    document.body.append(link);
    link.click();
    link.remove();
    URL.revokeObjectURL(url);
    setNotice({ tone: 'success', message: `Backup codes saved as ${downloadName}.` });
  };

  return (
    <div className="notice stack">
      <p>
        <strong>Your backup codes.</strong> Each works once, if you lose your authenticator. Keep them somewhere safe: they are shown only now.
      </p>
      <ul className="codes" aria-label="Backup codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="button" onClick={() => void copy()}>
          Copy codes
        </button>
        <button type="button" className="button" onClick={download}>
          Download codes
        </button>
      </div>
      <FormAlert message={notice?.message ?? null} tone={notice?.tone} />
    </div>
  );
}
