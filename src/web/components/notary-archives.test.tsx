import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { NotaryArchive, NotaryArchiveList } from '#shared/journal-archives.ts';
import { NotaryArchives, notaryArchiveKeys } from './notary-archives.tsx';

function archive(overrides: Partial<NotaryArchive>): NotaryArchive {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    notaryId: '22222222-2222-4222-8222-222222222222',
    commissionState: 'TX',
    commissionNumber: '13245768-9',
    status: 'ready',
    filesTotal: 120,
    filesDone: 120,
    bytesTotal: 52_428_800,
    bytesDone: 52_428_800,
    sizeBytes: 53_000_000,
    sha256: 'a'.repeat(64),
    failureReason: null,
    createdAt: '2026-11-20T15:00:00.000Z',
    startedAt: '2026-11-20T15:00:01.000Z',
    finishedAt: '2026-11-20T15:01:00.000Z',
    expiresAt: '2026-11-27T15:01:00.000Z',
    downloadUrl: '/api/notary-log/archives/11111111-1111-4111-8111-111111111111/download',
    ...overrides,
  };
}

function render(list: NotaryArchiveList, props: { notaryId?: string; notaryName?: string } = {}) {
  const queryClient = new QueryClient();
  queryClient.setQueryData(notaryArchiveKeys.list(props.notaryId ?? null), list);
  return renderToStaticMarkup(
    <QueryClientProvider client={queryClient}>
      <NotaryArchives {...props} />
    </QueryClientProvider>,
  );
}

const current = { state: 'TX', number: '13245768-9', isCurrent: true, entryCount: 12 };

describe('Export my records', () => {
  it('says what is included, names the commission and says so when there is no archive yet', () => {
    const html = render({ commissions: [current], items: [] });
    expect(html).toContain('Export my records');
    expect(html).toContain('every finalized journal entry');
    expect(html).toContain('Commission 13245768-9 (TX): 12 finalized entries.');
    expect(html).toContain('No archive yet.');
    expect(html).toContain('Build the archive');
    expect(html).not.toContain('<select');
  });

  it('asks which commission when the journal holds entries of more than one', () => {
    const html = render({ commissions: [current, { state: 'TX', number: '1111-0', isCurrent: false, entryCount: 3 }], items: [] });
    expect(html).toMatch(/<label for="[^"]+">Commission<\/label><select/);
    expect(html).toContain('13245768-9 (TX), current: 12 entries');
    expect(html).toContain('1111-0 (TX): 3 entries');
  });

  it('shows a build in progress as a bar with files and sizes, and no second request meanwhile', () => {
    const html = render({
      commissions: [current],
      items: [archive({ status: 'building', filesDone: 30, bytesDone: 10_485_760, sizeBytes: null, sha256: null, downloadUrl: null, expiresAt: null })],
    });
    expect(html).toContain('30 of 120 files, 10 MB of 50 MB');
    expect(html).toMatch(/<progress aria-labelledby="[^"]+" max="120" value="30">/);
    expect(html).toMatch(/<button type="submit" class="button primary" disabled="">Build the archive<\/button>/);
    expect(html).not.toContain('Delete<');
  });

  it('offers a ready archive as a plain download link with its SHA-256 and when it is deleted', () => {
    const html = render({ commissions: [current], items: [archive({})] });
    expect(html).toContain('href="/api/notary-log/archives/11111111-1111-4111-8111-111111111111/download"');
    expect(html).toContain('Download (50.5 MB)');
    expect(html).toContain('a'.repeat(64));
    expect(html).toMatch(/Deleted from the server on [A-Z][a-z]{2} 27, 2026\./);
    expect(html).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it('says why a build failed, in the server’s sentence', () => {
    const reason = 'A recording segment of “Deed” could not be read from storage. Ask for the archive again.';
    const html = render({ commissions: [current], items: [archive({ status: 'failed', failureReason: reason, downloadUrl: null })] });
    expect(html).toContain('Could not be built');
    expect(html).toContain('could not be read from storage');
  });

  it('is “Export this notary’s records” for an administrator', () => {
    const html = render({ commissions: [current], items: [] }, { notaryId: '22222222-2222-4222-8222-222222222222', notaryName: 'Nora Notary' });
    expect(html).toContain('Export this notary’s records');
    expect(html).toContain('Nora Notary’s records');
  });
});
