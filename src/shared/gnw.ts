import { z } from 'zod';
import { personNameSchema } from './auth.ts';
import { notarizationTypeSchema } from './jobs.ts';
import { feeKinds, priceUnits } from './pricing.ts';
import { usStateCodes } from './us-states.ts';

/**
 * Notarize Now (the instant-notary flow, also called GNW; decision 051): a person with a PDF and no
 * title company starts a job from the wizard, sees an estimate, authorises payment, and is offered to
 * online notaries one at a time (the instant lane) or books a time (the scheduled lane).
 */

export const gnwLanes = ['instant', 'scheduled'] as const;
export type GnwLane = (typeof gnwLanes)[number];
export const gnwLaneSchema = z.enum(gnwLanes, { message: 'Choose now or a scheduled time.' });

export const gnwStatuses = ['setup', 'searching', 'unmatched', 'matched', 'booked', 'completed', 'cancelled'] as const;
export type GnwStatus = (typeof gnwStatuses)[number];
/** A request in one of these is the person's active instant job (one at a time). */
export const activeGnwStatuses: readonly GnwStatus[] = ['setup', 'searching', 'unmatched', 'matched', 'booked'];

export const gnwSteps = ['documents', 'needs', 'payment', 'notary', 'session', 'done'] as const;
export type GnwStep = (typeof gnwSteps)[number];
export const gnwStepLabels: Record<GnwStep, string> = {
  documents: 'Your documents',
  needs: 'What you need',
  payment: 'Payment',
  notary: 'Your notary',
  session: 'Your session',
  done: 'Done',
};

/** How long an offer rings before it moves on to the next notary. */
export const offerSeconds = 30;
/** The wizard seed kept in the browser: 1 hour. */
export const wizardSeedLifetimeMs = 60 * 60 * 1000;
/** Bookable times are cut from availability slots in pieces of this length. */
export const bookingMinutes = 30;
export const maxOtherSigners = 9;
export const maxWitnessesRequested = 2;

const stateCodeSchema = z.enum(usStateCodes, { message: 'Choose the state you are in.' });
const jobIdSchema = z.string({ message: 'jobId is required.' }).uuid({ message: 'jobId must be a job id.' });

/** An IANA time zone the runtime knows. */
export const timeZoneSchema = z
  .string({ message: 'timeZone must be a time zone such as America/Chicago.' })
  .min(1)
  .max(64)
  .refine(
    (zone) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    },
    { message: 'timeZone must be a time zone such as America/Chicago.' },
  );

/** POST /api/gnw/estimate: counts given directly, or read from the person's own job. */
export const gnwEstimateInputSchema = z
  .object({
    jobId: jobIdSchema.optional(),
    act: notarizationTypeSchema.default('acknowledgment'),
    signerState: stateCodeSchema.nullable().optional(),
    signers: z.number({ message: 'signers must be a number from 1 to 10.' }).int().min(1).max(10).default(1),
    witnesses: z.number({ message: 'witnesses must be 0, 1 or 2.' }).int().min(0).max(maxWitnessesRequested).default(0),
    documents: z.number({ message: 'documents must be a number from 1 to 20.' }).int().min(1).max(20).default(1),
  })
  .strict();
export type GnwEstimateInput = z.input<typeof gnwEstimateInputSchema>;

export const gnwEstimateLineSchema = z.object({
  key: z.string(),
  label: z.string(),
  unit: z.enum(priceUnits),
  feeKind: z.enum(feeKinds),
  quantity: z.number().int(),
  unitCents: z.number().int(),
  amountCents: z.number().int(),
});
export type GnwEstimateLine = z.infer<typeof gnwEstimateLineSchema>;

export const gnwEstimateSchema = z.object({
  lines: z.array(gnwEstimateLineSchema),
  notarialCents: z.number().int(),
  platformCents: z.number().int(),
  totalCents: z.number().int(),
  /** The cap of the person's state, with its citation, when the state has one recorded. */
  cap: z.object({ state: z.string(), stateName: z.string(), perActCents: z.number().int(), rule: z.string(), citation: z.string() }).nullable(),
  /** Sentences: how the notarial fee stands against the cap, and that platform fees are apart from it. */
  notes: z.array(z.string()),
});
export type GnwEstimate = z.infer<typeof gnwEstimateSchema>;

/** POST /api/gnw/jobs: start the person's instant job (one active at a time). */
export const createGnwJobInputSchema = z
  .object({
    lane: gnwLaneSchema.default('instant'),
    act: notarizationTypeSchema.optional(),
    title: z.string().trim().min(1).max(200).optional(),
  })
  .strict();
export type CreateGnwJobInput = z.input<typeof createGnwJobInputSchema>;

export const otherSignerSchema = z.object({
  name: z.string({ message: 'Each other signer needs a name.' }).trim().min(1, { message: 'Each other signer needs a name.' }).max(200),
  email: z
    .string({ message: 'Each other signer needs an email address.' })
    .trim()
    .toLowerCase()
    .email({ message: 'Each other signer needs an email address.' })
    .max(254),
});

/** PUT /api/gnw/jobs/{jobId}: what the person chose and where they are in the wizard. */
export const updateGnwJobInputSchema = z
  .object({
    step: z.enum(gnwSteps).optional(),
    lane: gnwLaneSchema.optional(),
    act: notarizationTypeSchema.optional(),
    signerState: stateCodeSchema.optional(),
    timeZone: timeZoneSchema.optional(),
    witnessesRequested: z.number().int().min(0).max(maxWitnessesRequested).optional(),
    /** The people signing besides the person (each gets an invitation); replaces the earlier list. */
    otherSigners: z.array(otherSignerSchema).max(maxOtherSigners).optional(),
  })
  .strict();
export type UpdateGnwJobInput = z.input<typeof updateGnwJobInputSchema>;

export const gnwJobInputSchema = z.object({ jobId: jobIdSchema }).strict();
export type GnwJobInput = z.input<typeof gnwJobInputSchema>;

/** POST /api/gnw/preauth: the card made by Stripe.js in the browser. */
export const gnwPreauthInputSchema = z
  .object({
    jobId: jobIdSchema,
    paymentMethod: z
      .string({ message: 'paymentMethod must be a Stripe payment method id (pm_…).' })
      .regex(/^pm_[A-Za-z0-9_]{1,200}$/, { message: 'paymentMethod must be a Stripe payment method id (pm_…).' })
      .optional(),
  })
  .strict();
export type GnwPreauthInput = z.input<typeof gnwPreauthInputSchema>;

/** POST /api/gnw/cancel: a late cancel costs the no-show price; the person accepts it first. */
export const gnwCancelInputSchema = z.object({ jobId: jobIdSchema, acceptFee: z.boolean().optional() }).strict();
export type GnwCancelInput = z.input<typeof gnwCancelInputSchema>;

/** POST /api/gnw/schedule/slots */
export const gnwSlotsInputSchema = z
  .object({
    jobId: jobIdSchema.optional(),
    act: notarizationTypeSchema.optional(),
    signerState: stateCodeSchema.optional(),
    timeZone: timeZoneSchema,
    /** The first day to list (YYYY-MM-DD in timeZone); today when absent. */
    from: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'from must be a date (YYYY-MM-DD).' })
      .optional(),
    days: z.number().int().min(1).max(14).default(7),
  })
  .strict();
export type GnwSlotsInput = z.input<typeof gnwSlotsInputSchema>;

export const gnwSlotSchema = z.object({
  notaryId: z.string(),
  notaryName: z.string(),
  commissionState: z.string(),
  startsAt: z.string(),
  endsAt: z.string(),
  /** The time as the person reads it, in their zone ("Tuesday, December 1, 9:30 AM CST"). */
  label: z.string(),
});
export type GnwSlot = z.infer<typeof gnwSlotSchema>;
export const gnwSlotsSchema = z.object({ timeZone: z.string(), slots: z.array(gnwSlotSchema), message: z.string() });
export type GnwSlots = z.infer<typeof gnwSlotsSchema>;

/** POST /api/gnw/schedule/book */
export const gnwBookInputSchema = z
  .object({
    jobId: jobIdSchema,
    notaryId: z.string().uuid({ message: 'notaryId must be a notary id.' }),
    startsAt: z.string().datetime({ offset: true, message: 'startsAt must be a time from the slots list.' }),
    timeZone: timeZoneSchema,
  })
  .strict();
export type GnwBookInput = z.input<typeof gnwBookInputSchema>;

export const gnwSearchSchema = z.object({
  startedAt: z.string(),
  endsAt: z.string(),
  /** 1 when nobody asked before this person and is still waiting. */
  place: z.number().int(),
  /** Notaries online and eligible now. */
  notariesOnline: z.number().int(),
  offersMade: z.number().int(),
  /** Median seconds from request to acceptance over recent matches; null with too few to say. */
  typicalWaitSeconds: z.number().int().nullable(),
  /** The offer ringing now, if any (never who it rings at). */
  ringing: z.boolean(),
});

export const gnwBookingSchema = z.object({
  id: z.string(),
  startsAt: z.string(),
  endsAt: z.string(),
  timeZone: z.string(),
  notaryName: z.string(),
  label: z.string(),
});
export type GnwBooking = z.infer<typeof gnwBookingSchema>;

/** The person's instant job as the wizard reads it (GET /api/gnw/jobs/{jobId}, and every call's answer). */
export const gnwJobSchema = z.object({
  jobId: z.string(),
  title: z.string(),
  lane: gnwLaneSchema,
  status: z.enum(gnwStatuses),
  step: z.enum(gnwSteps),
  act: notarizationTypeSchema,
  signerState: z.string().nullable(),
  timeZone: z.string(),
  signerCount: z.number().int(),
  otherSigners: z.array(z.object({ name: z.string(), email: z.string() })),
  witnessesRequested: z.number().int(),
  documentCount: z.number().int(),
  jobStatus: z.string(),
  estimate: gnwEstimateSchema.nullable(),
  payment: z.object({ status: z.string(), amountCents: z.number().int(), capturedCents: z.number().int().nullable() }).nullable(),
  search: gnwSearchSchema.nullable(),
  notaryName: z.string().nullable(),
  matchedAt: z.string().nullable(),
  booking: gnwBookingSchema.nullable(),
  /** What the person should do next, as a sentence. */
  nextStep: z.string(),
  /** Whether the person may still cancel, and what it would cost (cents; 0 when free). */
  cancelFeeCents: z.number().int().nullable(),
});
export type GnwJob = z.infer<typeof gnwJobSchema>;

/** GET /api/gnw/active: the person's active instant job, if any. */
export const gnwActiveSchema = z.object({ job: gnwJobSchema.nullable() });

/** POST /api/gnw/finalize */
export const gnwFinalizeSchema = z.object({
  job: gnwJobSchema,
  chargedCents: z.number().int(),
  message: z.string(),
  documents: z.array(z.object({ id: z.string(), name: z.string(), downloadUrl: z.string() })),
});
export type GnwFinalize = z.infer<typeof gnwFinalizeSchema>;

/** An offer as the notary (or platform witness) it rings at sees it. */
export const gnwOfferSchema = z.object({
  id: z.string(),
  kind: z.enum(['notary', 'witness']),
  isTest: z.boolean(),
  jobId: z.string().nullable(),
  act: z.string(),
  actLabel: z.string(),
  signerState: z.string().nullable(),
  stateName: z.string().nullable(),
  documentCount: z.number().int(),
  signerCount: z.number().int(),
  witnessesRequested: z.number().int(),
  offeredAt: z.string(),
  expiresAt: z.string(),
});
export type GnwOffer = z.infer<typeof gnwOfferSchema>;
export const gnwOffersSchema = z.object({ items: z.array(gnwOfferSchema) });
export const gnwOfferAnswerSchema = z.object({ message: z.string(), jobId: z.string().nullable(), sessionPath: z.string().nullable() });

/** GET /api/gnw/loop?state&act: the administrators' view of the matching loop. */
export const gnwLoopQuerySchema = z.object({ state: stateCodeSchema.optional(), act: notarizationTypeSchema.default('acknowledgment') });
export const gnwLoopCandidateSchema = z.object({
  notaryId: z.string(),
  name: z.string(),
  commissionState: z.string().nullable(),
  online: z.boolean(),
  eligible: z.boolean(),
  acceptsTestOffers: z.boolean(),
  /** Where the next offer would go: 1 first; null when not eligible. */
  order: z.number().int().nullable(),
  /** Why they are in that place, or why they are left out, as a sentence. */
  reason: z.string(),
  lastOfferedAt: z.string().nullable(),
});
export const gnwLoopSchema = z.object({
  candidates: z.array(gnwLoopCandidateSchema),
  searching: z.number().int(),
  openOffers: z.number().int(),
});
export type GnwLoop = z.infer<typeof gnwLoopSchema>;
export const gnwTestOfferInputSchema = z.object({ notaryId: z.string().uuid({ message: 'notaryId must be a notary id.' }) }).strict();

/** POST /api/auth/email-code/start and /verify: sign in or create a signer account on the way, by a mailed code. */
export const emailCodeStartInputSchema = z
  .object({
    email: z.string({ message: 'Please enter your email address.' }).trim().toLowerCase().email({ message: 'Please enter a valid email address.' }).max(254),
    /** The name a new account gets (the rule of registration's name: one line, at most 120 characters). */
    name: personNameSchema.optional(),
  })
  .strict();
/**
 * `isCodeSent` is false only for an address with no account when no name came with it: the page then
 * asks for the name and starts again (a new account needs one).
 */
export const emailCodeStartSchema = z.object({ message: z.string(), isNewAccount: z.boolean(), isCodeSent: z.boolean() });
/** A code mailed to sign in on the way into Notarize Now lasts 10 minutes and five wrong tries; another may be asked for after 30 s. */
export const emailSignInConstants = { lifetimeMs: 10 * 60_000, maxAttempts: 5, resendCooldownSeconds: 30 } as const;
export const emailCodeVerifyInputSchema = z
  .object({
    email: z.string({ message: 'Please enter your email address.' }).trim().toLowerCase().email({ message: 'Please enter a valid email address.' }).max(254),
    code: z.string({ message: 'Please enter a valid 6-digit code.' }).regex(/^\d{6}$/, { message: 'Please enter a valid 6-digit code.' }),
  })
  .strict();
