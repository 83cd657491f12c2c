import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { jobRecordingsSchema } from '#shared/recording-playback.ts';
import { findJobRecordings, openRecordingSegment, parseByteRange } from './recording-playback.service.ts';
import { jobParams, uuidParam } from '#server/lib/route-params.ts';

const segmentParams = jobParams.extend({ segmentId: uuidParam('Segment') });
const signedIn = 'signed-in' as const;

/** Playback of a job's recordings (decision 022), under /api/jobs; read-only. */
export const recordingPlaybackRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:id/recordings', { config: { access: signedIn }, schema: { params: jobParams, response: { 200: jobRecordingsSchema } } }, async (request) =>
    findJobRecordings(request.ctx, request.params.id),
  );

  app.get('/:id/recordings/segments/:segmentId', { config: { access: signedIn }, schema: { params: segmentParams } }, async (request, reply) => {
    const { content, sha256 } = await openRecordingSegment(request.ctx, request.params.id, request.params.segmentId);
    reply.header('accept-ranges', 'bytes').header('cache-control', 'private, max-age=3600').header('etag', `"${sha256}"`);
    const range = parseByteRange(request.headers.range, content.length);
    if (range === 'unsatisfiable') {
      return reply
        .code(416)
        .type('application/json; charset=utf-8')
        .header('content-range', `bytes */${content.length}`)
        .send({ error: 'range_not_satisfiable', message: 'That byte range is outside the segment.' });
    }
    reply.type('video/webm');
    if (!range) return reply.header('content-length', String(content.length)).send(content);
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${content.length}`)
      .header('content-length', String(range.end - range.start + 1))
      .send(content.subarray(range.start, range.end + 1));
  });
};
