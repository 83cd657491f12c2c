import { useEffect, useRef, useState } from 'react';
import { videoMapSlotCount } from '#shared/video.ts';

export interface TileInfo {
  participantId: string;
  name: string;
  role: string;
  isSelf: boolean;
  isAway: boolean;
  audioMuted: boolean;
  videoOff: boolean;
  stream: MediaStream | null;
  slot: number;
}

const roleNames: Record<string, string> = { notary: 'Notary', signer: 'Signer', witness: 'Witness', observer: 'Observer' };

function initialsOf(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase() ?? '')
    .join('');
}

/**
 * One person's video with their name and role. A remote tile plays the person's sound too; the
 * self-view is muted and mirrored. `onMove` (the notary's) moves the person to another place; the
 * menu waits while a move is being saved, so the next one starts from the version it made.
 */
export function VideoTile({ tile, onMove, isMoving = false }: { tile: TileInfo; onMove?: (slot: number) => void; isMoving?: boolean }) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const [needsTap, setNeedsTap] = useState(false);
  const label = tile.isSelf ? `${tile.name} (you)` : tile.name;

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    if (video.srcObject !== tile.stream) video.srcObject = tile.stream;
    if (tile.stream)
      video.play().then(
        () => setNeedsTap(false),
        () => setNeedsTap(!tile.isSelf),
      );
  }, [tile.stream, tile.isSelf]);

  const isPictureShown = tile.stream !== null && tile.stream.getVideoTracks().length > 0 && !tile.videoOff && !tile.isAway;
  return (
    <figure
      className={`video-tile${tile.isSelf ? ' self' : ''}${tile.isAway ? ' away' : ''}`}
      data-participant-id={tile.participantId}
      aria-label={`${label}, ${roleNames[tile.role] ?? tile.role}`}
    >
      <video ref={videoRef} autoPlay playsInline muted={tile.isSelf} className={isPictureShown ? '' : 'hidden-picture'} aria-hidden="true" />
      {isPictureShown ? null : (
        <div className="tile-avatar" aria-hidden="true">
          {initialsOf(tile.name)}
        </div>
      )}
      <figcaption className="tile-caption">
        <span className="tile-name">{label}</span>
        <span className="tile-role">{roleNames[tile.role] ?? tile.role}</span>
        {tile.audioMuted ? <span className="tile-marker">Muted</span> : null}
        {tile.videoOff ? <span className="tile-marker">Camera off</span> : null}
        {tile.isAway ? <span className="tile-marker warn">Connection lost</span> : null}
      </figcaption>
      {needsTap ? (
        <button type="button" className="button tile-play" onClick={() => void videoRef.current?.play().then(() => setNeedsTap(false))}>
          Play {tile.name}&rsquo;s sound
        </button>
      ) : null}
      {onMove ? (
        <label className="tile-move">
          <span className="visually-hidden">Place of {tile.name}</span>
          <select value={tile.slot} disabled={isMoving} onChange={(event) => onMove(Number(event.target.value))}>
            {Array.from({ length: videoMapSlotCount }, (_, slot) => (
              <option key={slot} value={slot}>
                Place {slot + 1}
              </option>
            ))}
          </select>
        </label>
      ) : null}
    </figure>
  );
}
