import { Link, useNavigate } from 'react-router';
import type { JobDocument } from '#shared/documents.ts';
import { jobStatusLabels, type Job } from '#shared/jobs.ts';
import type { LiveState } from '#web/api/live-channel.ts';
import type { useRememberedZoom } from './use-zoom.ts';

interface WorkspaceBarProps {
  jobId: string;
  /** Where documents open: /signing, or /session in the session room. */
  routeBase: string;
  job: Job | undefined;
  liveState: LiveState;
  documents: JobDocument[];
  currentDocumentId: string | null;
  zoom: ReturnType<typeof useRememberedZoom>;
  /** Shown only to participants while the session is live. */
  canFollow: boolean;
  isFollowing: boolean;
  onFollowChange: (isFollowing: boolean) => void;
}

/** The workspace's top bar: back to the job, live state, the document, zoom and following. */
export function WorkspaceBar({
  jobId,
  routeBase,
  job,
  liveState,
  documents,
  currentDocumentId,
  zoom,
  canFollow,
  isFollowing,
  onFollowChange,
}: WorkspaceBarProps) {
  const navigate = useNavigate();
  return (
    <header className="workspace-bar">
      <Link to={`/jobs/detail?jobId=${jobId}`} className="button link">
        ← Job
      </Link>
      <h1>{job?.title ?? 'Signing session'}</h1>
      {job ? <span className={`badge status-${job.status}`}>{jobStatusLabels[job.status]}</span> : null}
      <span className={`live-dot ${liveState}`} role="status">
        {liveState === 'live' ? 'Live' : liveState === 'connecting' ? 'Connecting…' : 'Offline: reconnecting'}
      </span>
      <div className="field inline">
        <label htmlFor="document-switcher">Document</label>
        <select id="document-switcher" value={currentDocumentId ?? ''} onChange={(event) => navigate(`${routeBase}/${jobId}/${event.target.value}`)}>
          {documents.map((item) => (
            <option key={item.id} value={item.id}>
              {item.name}
              {item.status === 'completed' ? ' (complete)' : ''}
            </option>
          ))}
        </select>
      </div>
      <div className="row zoom" role="group" aria-label="Zoom">
        <button type="button" className="button icon" aria-label="Zoom out" disabled={!zoom.canZoomOut} onClick={zoom.zoomOut}>
          −
        </button>
        <span>{Math.round(zoom.zoom * 100)}%</span>
        <button type="button" className="button icon" aria-label="Zoom in" disabled={!zoom.canZoomIn} onClick={zoom.zoomIn}>
          +
        </button>
      </div>
      {canFollow ? (
        <label className="checkbox">
          <input type="checkbox" checked={isFollowing} onChange={(event) => onFollowChange(event.target.checked)} />
          Follow the notary
        </label>
      ) : null}
    </header>
  );
}
