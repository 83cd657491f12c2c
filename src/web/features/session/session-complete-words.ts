/**
 * What happens next once the session ended, by whether the job was sealed in it and by role. When a
 * job is sealed the server mails each signer a link to the job page at the address of their account
 * (jobs/job-mail.ts), so the signer's sentence names that address; nobody else is promised mail.
 */
const nextSteps: Record<'sealed' | 'unsealed', Record<string, (email: string) => string>> = {
  sealed: {
    notary: () =>
      'The job is sealed and digitally signed. Finish its journal entry now, on the job page: the entry was drafted from this act. Its notarized documents, the audit trail and the session’s recording are there too.',
    signer: (email) => `The notary sealed the documents. You can download the notarized documents on the job page; we emailed a link to it to ${email}.`,
    witness: () => 'The notary sealed the documents. The notarized documents are on the job page.',
    observer: () => 'The notary sealed the documents. Nothing more is needed from you.',
  },
  unsealed: {
    notary: () =>
      'The job was not sealed in this session, so it is back to ready. Fields are filled only while a session is recorded: open another session from the job page to finish it.',
    signer: () => 'The documents were not sealed in this session. The notary will invite you to another session to finish them.',
    witness: () => 'The documents were not sealed in this session. The notary will invite you to another session to finish them.',
    observer: () => 'The documents were not sealed in this session. Nothing more is needed from you.',
  },
};

export function describeNextStep({ isSealed, role, email }: { isSealed: boolean; role: string | null; email: string | undefined }): string {
  const describe = role ? nextSteps[isSealed ? 'sealed' : 'unsealed'][role] : undefined;
  return describe ? describe(email ?? 'the address you sign in with') : 'Open the job page to see where it stands.';
}
