import './call.css';
import { notaryParticipantId, type VideoRole } from '#shared/video.ts';
import type { MediaHubState } from './use-media-hub.ts';
import { useVideoMap } from './use-video-map.ts';
import { CallControls } from './call-controls.tsx';
import { describeAway, layoutTiles, moveToSlot } from './video-layout.ts';
import { VideoTile, type TileInfo } from './video-tile.tsx';

export interface CallPanelProps {
  jobId: string;
  sessionId: string;
  participantId: string;
  selfName: string;
  role: VideoRole;
  hub: MediaHubState;
}

const isDropped = (state: string) => state === 'disconnected' || state === 'failed';

/**
 * The live call: everyone's video laid out by the shared video map (the notary moves people between
 * places), the person's own view, their controls and connection level, and a banner while someone,
 * or the person themselves, has lost the connection.
 */
export function CallPanel({ jobId, sessionId, participantId, selfName, role, hub }: CallPanelProps) {
  const peers = hub.peers.some((peer) => peer.participantId === participantId)
    ? hub.peers
    : [...hub.peers, { participantId, name: selfName, role, connectionState: 'new', isAway: false, audioMuted: false, videoOff: false } as const];
  const roomKey = peers.map((peer) => peer.participantId).join(',');
  const map = useVideoMap(jobId, sessionId, roomKey);
  const layout = layoutTiles(
    map.assignments,
    peers.map((peer) => peer.participantId),
  );
  const isNotary = participantId === notaryParticipantId;
  const tiles: TileInfo[] = layout.flatMap(({ slot, participantId: id }) => {
    const peer = peers.find((candidate) => candidate.participantId === id);
    if (!peer) return [];
    const isSelf = id === participantId;
    return [
      {
        participantId: id,
        name: isSelf ? selfName || peer.name : peer.name,
        role: peer.role,
        isSelf,
        isAway: !isSelf && (peer.isAway || isDropped(peer.connectionState)),
        audioMuted: isSelf ? hub.audioMuted : peer.audioMuted,
        videoOff: isSelf ? hub.videoOff : peer.videoOff,
        stream: isSelf ? hub.local : (hub.remote[id] ?? null),
        slot,
      },
    ];
  });
  const away = describeAway(tiles.filter((tile) => tile.isAway).map((tile) => tile.name));
  const isReconnecting = hub.phase === 'reconnecting';

  return (
    <section className="call-panel" aria-label="Video call">
      {hub.closedSentence ? (
        <p className="alert" role="alert">
          {hub.closedSentence}
        </p>
      ) : null}
      {isReconnecting ? (
        <p className="call-banner self" role="status">
          Your connection dropped. Reconnecting{hub.reconnectAttempt > 1 ? ` (attempt ${hub.reconnectAttempt})` : ''}…
        </p>
      ) : null}
      {away ? (
        <p className="call-banner" role="status">
          {away}
        </p>
      ) : null}
      {hub.phase === 'starting' || hub.phase === 'connecting' ? (
        <p className="call-progress" role="status">
          Connecting to the session…
        </p>
      ) : null}
      {hub.notice ? (
        <p className="notice" role="status">
          {hub.notice}
        </p>
      ) : null}
      {map.notice ? (
        <p className="notice" role="status">
          {map.notice}
        </p>
      ) : null}
      {/* On a phone the tiles scroll sideways: the strip takes the focus, so a keyboard can scroll it too (axe scrollable-region-focusable). */}
      <div className="video-grid" data-count={tiles.length} role="group" aria-label="Everyone’s video" tabIndex={0}>
        {tiles.map((tile) => (
          <VideoTile
            key={tile.participantId}
            tile={tile}
            isMoving={map.isSaving}
            onMove={isNotary ? (slot) => map.move(moveToSlot(layout, tile.participantId, slot)) : undefined}
          />
        ))}
      </div>
      {hub.phase === 'closed' ? null : (
        <CallControls
          audioMuted={hub.audioMuted}
          videoOff={hub.videoOff}
          cameraId={hub.cameraId}
          microphoneId={hub.microphoneId}
          quality={isReconnecting ? 'poor' : hub.quality}
          onAudioMuted={hub.setAudioMuted}
          onVideoOff={hub.setVideoOff}
          onSwitch={hub.switchDevice}
        />
      )}
    </section>
  );
}
