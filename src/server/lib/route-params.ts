import { z } from 'zod';

/** A path parameter that must be a UUID, refused with a sentence naming what it identifies. */
export const uuidParam = (noun: string) => z.uuid({ message: `${noun} id must be a UUID.` });

/** `/:id` of a route about one object, named for the sentence a bad id gets. */
export const idParams = (noun: string) => z.object({ id: uuidParam(noun) });

/** `/:id` of the job routes (/api/jobs/{id}/…). */
export const jobParams = idParams('Job');

/** `/:jobId` of the routes that name a job beside another object (journal, invitations). */
export const jobIdParams = z.object({ jobId: uuidParam('Job') });

/** `/:id/documents/:docId`. */
export const documentParams = jobParams.extend({ docId: uuidParam('Document') });

/** `/:sid` of the video session routes. */
export const sessionParams = z.object({ sid: uuidParam('Session') });

/** `/:id` of the routes about one user (admin users, passwords, identity resets). */
export const userParams = idParams('User');

/** `/:id` of the routes about one notary (approval, profile). */
export const notaryParams = idParams('Notary');

/** `/:id` of the routes about one title company (the company, its invoices, its prices). */
export const companyParams = idParams('Title company');
