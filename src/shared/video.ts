import { z } from 'zod';

/** A live session's states, in order: created -> active -> started -> finalized. */
export const videoSessionStatuses = ['created', 'active', 'started', 'finalized'] as const;
export const videoSessionStatusSchema = z.enum(videoSessionStatuses);
export type VideoSessionStatus = z.infer<typeof videoSessionStatusSchema>;

export const videoRoles = ['signer', 'witness', 'observer', 'notary'] as const;
export const videoRoleSchema = z.enum(videoRoles, { message: 'Role must be signer, witness, observer or notary.' });
export type VideoRole = z.infer<typeof videoRoleSchema>;

export const lobbyStates = ['waiting', 'admitted', 'denied', 'left'] as const;
export const lobbyStateSchema = z.enum(lobbyStates);
export type LobbyState = z.infer<typeof lobbyStateSchema>;

/** The notary's participant id in a session; everyone else is named by their job participant id. */
export const notaryParticipantId = 'notary';

/** A participant silent (no heartbeat) for this long is shown as away. */
export const heartbeatAwayMs = 90_000;
/** How long a media token stays valid. */
export const videoTokenLifetimeMs = 5 * 60_000;

const uuidOf = (name: string) => z.uuid({ message: `${name} must be a UUID.` });

/** One browser's set of devices (camera, microphone), chosen by the client: letters, digits, - and _. */
export const deviceGroupIdSchema = z
  .string({ message: 'Send the deviceGroupId of this browser.' })
  .trim()
  .regex(/^[\w-]{1,64}$/, { message: 'deviceGroupId is 1 to 64 letters, digits, dashes or underscores.' });

const participantIdMessage = 'participantId is "notary" or the id of a participant of the job.';
export const participantIdSchema = z.union([z.literal(notaryParticipantId), z.uuid({ message: participantIdMessage })], { message: participantIdMessage });

export const createVideoSessionInputSchema = z.object({ jobId: uuidOf('jobId') });

export const joinSessionInputSchema = z.object({
  consentToRecording: z.literal(true, { message: 'You must agree to the session being recorded to enter it.' }),
  deviceGroupId: deviceGroupIdSchema,
});
export type JoinSessionInput = z.infer<typeof joinSessionInputSchema>;

export const videoTokenInputSchema = z.object({
  sessionId: uuidOf('sessionId'),
  role: videoRoleSchema,
  participantId: participantIdSchema,
  deviceGroupId: deviceGroupIdSchema,
});
export type VideoTokenInput = z.infer<typeof videoTokenInputSchema>;

export const heartbeatInputSchema = z.object({ sessionId: uuidOf('sessionId'), role: videoRoleSchema });

export const videoSessionParticipantSchema = z.object({
  participantId: z.string(),
  userId: z.string(),
  name: z.string(),
  role: videoRoleSchema,
  lobbyState: lobbyStateSchema,
  /** Admitted but silent for 90 s or more. */
  isAway: z.boolean(),
  /** Only signers and witnesses sign; observers and the notary's presence never make them signers. */
  canSign: z.boolean(),
  deviceGroupId: z.string(),
  consentedToRecordingAt: z.string(),
  joinedAt: z.string(),
  lastHeartbeatAt: z.string(),
});
export type VideoSessionParticipant = z.infer<typeof videoSessionParticipantSchema>;

export const videoSessionSchema = z.object({
  sessionId: z.string(),
  jobId: z.string(),
  status: videoSessionStatusSchema,
  activeDeviceGroupId: z.string().nullable(),
  createdAt: z.string(),
  activatedAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  finalizedAt: z.string().nullable(),
  participants: z.array(videoSessionParticipantSchema),
});
export type VideoSession = z.infer<typeof videoSessionSchema>;

export const joinSessionResultSchema = z.object({
  sessionId: z.string(),
  participantId: z.string(),
  role: videoRoleSchema,
  lobbyState: lobbyStateSchema,
  canSign: z.boolean(),
  message: z.string(),
});
export type JoinSessionResult = z.infer<typeof joinSessionResultSchema>;

export const videoTokenSchema = z.object({ token: z.string(), expiresAt: z.string() });
export const heartbeatResultSchema = z.object({ ok: z.literal(true), lastHeartbeatAt: z.string() });

export const videoDebugInfoSchema = z.object({
  sessions: z.array(videoSessionSchema.extend({ jobTitle: z.string(), stats: z.unknown().nullable() })),
});

/** The shared video map's slots: 0 to 8, a three-by-three grid at most. */
export const videoMapSlotCount = 9;

export const videoMapAssignmentSchema = z.object({
  slot: z
    .number({ message: 'slot must be a whole number from 0 to 8.' })
    .int({ message: 'slot must be a whole number from 0 to 8.' })
    .min(0, { message: 'slot must be a whole number from 0 to 8.' })
    .max(videoMapSlotCount - 1, { message: 'slot must be a whole number from 0 to 8.' }),
  participantId: participantIdSchema,
});
export type VideoMapAssignment = z.infer<typeof videoMapAssignmentSchema>;

/** POST shared-video-map: the whole layout, in order, and the version it was drawn from. */
export const sharedVideoMapInputSchema = z.object({
  assignments: z
    .array(videoMapAssignmentSchema, { message: 'Send assignments: a list of {slot, participantId}.' })
    .max(videoMapSlotCount, { message: `A map holds at most ${videoMapSlotCount} people, one per slot.` })
    .superRefine((assignments, context) => {
      const slots = new Set<number>();
      const people = new Set<string>();
      assignments.forEach((assignment, index) => {
        if (slots.has(assignment.slot)) context.addIssue({ code: 'custom', path: [index, 'slot'], message: `Slot ${assignment.slot} is given twice.` });
        if (people.has(assignment.participantId))
          context.addIssue({ code: 'custom', path: [index, 'participantId'], message: 'Each person is shown in one slot only.' });
        slots.add(assignment.slot);
        people.add(assignment.participantId);
      });
    }),
  version: z
    .number({ message: 'Send the version of the map you changed.' })
    .int({ message: 'version must be a whole number.' })
    .min(0, { message: 'version must be a whole number.' }),
});
export type SharedVideoMapInput = z.infer<typeof sharedVideoMapInputSchema>;

export const sharedVideoMapSchema = z.object({
  sessionId: z.string(),
  assignments: z.array(videoMapAssignmentSchema),
  version: z.number().int(),
});
export type SharedVideoMap = z.infer<typeof sharedVideoMapSchema>;
export const recordingStartInputSchema = z.object({ sessionId: uuidOf('sessionId') });
export const recordingStopInputSchema = z.object({ recordingId: uuidOf('recordingId'), sessionId: uuidOf('sessionId') });

/**
 * The notary's recording of the session. It says only when the notary started and stopped it and
 * how many segments the media hub has stored: whether media reached the hub is not claimed here.
 */
export const recordingSchema = z.object({
  recordingId: z.string(),
  sessionId: z.string(),
  status: z.enum(['recording', 'stopped']),
  startedAt: z.string(),
  stoppedAt: z.string().nullable(),
  segmentCount: z.number().int(),
});
export type Recording = z.infer<typeof recordingSchema>;
