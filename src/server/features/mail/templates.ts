import type { participantRoles } from '#shared/jobs.ts';
import type { MailTemplatePreview } from '#shared/mail.ts';
import { toSingleLine } from '#shared/text.ts';
import { renderMail, type MailDraft, type MailParagraph, type RenderedMail } from './layout.ts';

/**
 * Every email Open RON sends, one typed template each. A template takes the facts it needs, already
 * written for people (names, links, dates such as "Jun 30, 2031"), and gives the subject, the text
 * and the HTML (layout.ts). Names, titles and other one-line facts are put on one line here, so a
 * stored value with a line break can never start a line of its own ("Bcc: …") in a body or subject.
 */
export interface MailTemplate<Input> {
  /** A short human name, for the preview page. */
  title: string;
  /** One line: who receives it and when. */
  purpose: string;
  render(input: Input): RenderedMail;
  /** Sample facts, with links on the given public address, for the preview page and the tests. */
  sample(publicUrl: string): Input;
}

function defineTemplate<Input>(
  title: string,
  purpose: string,
  build: (input: Input) => MailDraft,
  sample: (publicUrl: string) => NoInfer<Input>,
): MailTemplate<Input> {
  return { title, purpose, render: (input) => renderMail(build(input)), sample };
}

const one = toSingleLine;
const hello = (name: string): MailParagraph => [[`Hello ${one(name)},`]];

type ParticipantRole = (typeof participantRoles)[number];
const inviteVerbs: Record<ParticipantRole, string> = { signer: 'sign', witness: 'witness', observer: 'observe' };

const sampleToken = 'sample-token-not-a-real-link';

export const mailTemplates = {
  passwordReset: defineTemplate(
    'Password reset link',
    'Sent when someone asks to reset the password of an active or pending account; the link works once, for one hour.',
    (input: { name: string; link: string }) => ({
      subject: 'Reset your Open RON password',
      paragraphs: [
        hello(input.name),
        [['Someone asked to reset the password of your Open RON account. To choose a new password, open this link within one hour:']],
        [[{ link: input.link }]],
        [['The link works once. If you did not ask for it, ignore this email: your password stays as it is.']],
      ],
    }),
    (publicUrl) => ({ name: 'Ada Lovelace', link: `${publicUrl}/login?resetToken=${sampleToken}` }),
  ),

  passwordChanged: defineTemplate(
    'Password changed',
    'Sent after a password was changed with a reset link and every device was signed out.',
    (input: { name: string }) => ({
      subject: 'Your Open RON password was changed',
      paragraphs: [
        hello(input.name),
        [
          ['The password of your Open RON account was just changed with a reset link, and every signed-in device was signed out.'],
          ['If this was not you, contact your administrator at once.'],
        ],
      ],
    }),
    () => ({ name: 'Ada Lovelace' }),
  ),

  mfaEmailCode: defineTemplate(
    'Sign-in code',
    'Sent when a person signing in chooses to receive their second-step code by email; it expires in 10 minutes.',
    (input: { name: string; code: string }) => ({
      subject: `Your Open RON sign-in code: ${input.code}`,
      paragraphs: [
        hello(input.name),
        [['Your sign-in code is ', { strong: one(input.code) }, '. It expires in 10 minutes.']],
        [['If you did not try to sign in, change your password: someone may know it.']],
      ],
    }),
    () => ({ name: 'Ada Lovelace', code: '123456' }),
  ),

  emailSignInCode: defineTemplate(
    'Notarize Now sign-in code',
    'Sent when someone on the way into Notarize Now asks to sign in, or to create a signer account, with this address; it expires in 10 minutes.',
    (input: { name: string; code: string; isNewAccount: boolean }) => ({
      subject: `Your Open RON code: ${input.code}`,
      paragraphs: [
        hello(input.name),
        [
          [
            input.isNewAccount
              ? 'To create your Open RON account and continue to Notarize Now, enter this code: '
              : 'To sign in and continue to Notarize Now, enter this code: ',
            { strong: one(input.code) },
            '. It expires in 10 minutes and works once.',
          ],
        ],
        [['If you did not ask for it, ignore this email: nothing happens without the code.']],
      ],
    }),
    () => ({ name: 'Ada Lovelace', code: '123456', isNewAccount: true }),
  ),

  emailVerification: defineTemplate(
    'Confirm an email address',
    'Sent to a new account, or on request, to prove the address is theirs; the link works for 24 hours.',
    (input: { name: string; link: string }) => ({
      subject: 'Confirm your email address for Open RON',
      paragraphs: [
        hello(input.name),
        [['Please confirm that this is your email address by opening this link within 24 hours:']],
        [[{ link: input.link }]],
        [
          ['Once it is confirmed, signing jobs you are invited to at this address appear on your dashboard.'],
          ['If you did not create an Open RON account, ignore this email.'],
        ],
      ],
    }),
    (publicUrl) => ({ name: 'Ada Lovelace', link: `${publicUrl}/verify-email/${sampleToken}` }),
  ),

  accountCreated: defineTemplate(
    'Account created by an administrator',
    'Sent when an administrator creates an account: a link to choose the password, which works once, for 7 days.',
    (input: { name: string; roles: string; link: string; forgotPasswordLink: string }) => ({
      subject: 'An Open RON account was created for you',
      paragraphs: [
        hello(input.name),
        [[`An administrator created an Open RON account for you at this email address (${one(input.roles)}).`]],
        [['To choose your password, open this link within 7 days:']],
        [[{ link: input.link }]],
        [['The link works once, and also confirms your email address.']],
        [['If it has expired, ask for a new one with Forgot password at ', { link: input.forgotPasswordLink }]],
      ],
    }),
    (publicUrl) => ({ name: 'Sam Signer', roles: 'Signer', link: `${publicUrl}/login?resetToken=${sampleToken}`, forgotPasswordLink: `${publicUrl}/login` }),
  ),

  emailChanged: defineTemplate(
    'Email address changed',
    'Sent to the former address of an account when an administrator changes its email address.',
    (input: { name: string; oldEmail: string }) => ({
      subject: 'The email address of your Open RON account was changed',
      paragraphs: [
        hello(input.name),
        [
          [`An administrator changed the email address of your Open RON account: it no longer uses ${one(input.oldEmail)}.`],
          ['Sign-in, password reset links and messages now go to the new address, once its owner confirms it.'],
        ],
        [['If you did not ask for this change, contact your administrator at once.']],
      ],
    }),
    () => ({ name: 'Sam Signer', oldEmail: 'sam@old.example' }),
  ),

  jobInvite: defineTemplate(
    'Invitation to a job',
    'Sent to a signer, witness or observer added to a job (or reminded); the link works once and expires in 7 days.',
    (input: { name: string; title: string; role: ParticipantRole; isReminder: boolean; link: string }) => {
      const verb = inviteVerbs[input.role];
      const title = one(input.title);
      return {
        subject: `${input.isReminder ? 'Reminder: ' : ''}You are invited to ${verb} "${title}"`,
        paragraphs: [
          hello(input.name),
          [
            [`You have been invited to ${verb} "${title}" on Open RON, a remote online notarization service.`],
            ['Open this link to accept (it works once and expires in 7 days):'],
          ],
          [[{ link: input.link }]],
          [['If the link has expired, ask for a new one at the request-access page.']],
        ],
      };
    },
    (publicUrl) => ({ name: 'Sam Signer', title: 'Deed of trust', role: 'signer' as const, isReminder: false, link: `${publicUrl}/claim/${sampleToken}` }),
  ),

  jobUpdate: defineTemplate(
    'Job update',
    'Sent to every participant of a job when its owner presses Notify: the job’s status and date.',
    (input: { name: string; title: string; status: string; scheduledFor: string | null; link: string }) => ({
      subject: `Update on "${input.title}"`,
      paragraphs: [
        hello(input.name),
        [
          [`"${one(input.title)}" is now ${input.status}${input.scheduledFor ? `, scheduled for ${input.scheduledFor}` : ''}.`],
          ['See it at ', { link: input.link }],
        ],
      ],
    }),
    (publicUrl) => ({
      name: 'Sam Signer',
      title: 'Deed of trust',
      status: 'scheduled',
      scheduledFor: 'Feb 3, 2031, 4:00 PM UTC',
      link: `${publicUrl}/jobs/detail?jobId=sample`,
    }),
  ),

  jobAssigned: defineTemplate(
    'Job assigned to a notary',
    'Sent to a notary when a job is created for them or they replace its notary.',
    (input: { name: string; title: string; link: string }) => ({
      subject: `You were assigned "${input.title}"`,
      paragraphs: [hello(input.name), [[`You are now the notary for "${one(input.title)}".`], ['Open it at ', { link: input.link }]]],
    }),
    (publicUrl) => ({ name: 'Nora Notary', title: 'Deed of trust', link: `${publicUrl}/jobs/detail?jobId=sample` }),
  ),

  witnessAssigned: defineTemplate(
    'Witness for a Notarize Now job',
    'Sent to a person with the witness role when they accept an offer to witness a Notarize Now job (decision 051).',
    (input: { name: string; title: string; link: string }) => ({
      subject: `You are witnessing "${input.title}"`,
      paragraphs: [
        hello(input.name),
        [[`You accepted to witness "${one(input.title)}". Join its session when the notary starts it.`], ['Open it at ', { link: input.link }]],
      ],
    }),
    (publicUrl) => ({ name: 'Wes Witness', title: 'Power of attorney', link: `${publicUrl}/jobs/detail?jobId=sample` }),
  ),

  jobReady: defineTemplate(
    'Job ready for the notary',
    'Sent to a job’s notary when someone else makes the job ready, or sends it to them.',
    (input: { name: string; title: string; link: string }) => ({
      subject: `Ready for you: "${input.title}"`,
      paragraphs: [hello(input.name), [[`"${one(input.title)}" is ready for notarization.`], ['Open it at ', { link: input.link }]]],
    }),
    (publicUrl) => ({ name: 'Nora Notary', title: 'Deed of trust', link: `${publicUrl}/jobs/detail?jobId=sample` }),
  ),

  jobCompletedSigner: defineTemplate(
    'Notarized documents ready (signer)',
    'Sent to each signer once the notary seals a job: where to download the notarized documents.',
    (input: { name: string; title: string; link: string }) => ({
      subject: `Your notarized documents are ready: "${input.title}"`,
      paragraphs: [
        hello(input.name),
        [[`The notary sealed "${one(input.title)}". Your notarized documents are on the job page: sign in with this address to download them.`]],
        [['Open it at ', { link: input.link }]],
      ],
    }),
    (publicUrl) => ({ name: 'Sam Signer', title: 'Deed of trust', link: `${publicUrl}/jobs/detail?jobId=sample` }),
  ),

  jobCompletedCompany: defineTemplate(
    'Job completed (title company)',
    'Sent to the title company’s people once the notary seals one of its jobs.',
    (input: { name: string; title: string; link: string }) => ({
      subject: `Completed: "${input.title}"`,
      paragraphs: [
        hello(input.name),
        [[`"${one(input.title)}" is completed: the notary sealed and digitally signed its documents.`]],
        [['The notarized documents and the audit trail are at ', { link: input.link }]],
      ],
    }),
    (publicUrl) => ({ name: 'Tia Title', title: 'Deed of trust', link: `${publicUrl}/jobs/detail?jobId=sample` }),
  ),

  identityResume: defineTemplate(
    'Continue the identity check on a phone',
    'Sent to a participant who asks to take the ID and face photos on their phone; the link works for 30 minutes.',
    (input: { name: string; link: string }) => ({
      subject: 'Continue your identity check on your phone',
      paragraphs: [
        hello(input.name),
        [['Open this link on your phone within 30 minutes to take the photos of your ID and of your face there:'], [{ link: input.link }]],
        [['Your computer carries on by itself when you are done. If you did not ask for this link, ignore this message.']],
      ],
    }),
    (publicUrl) => ({ name: 'Sam Signer', link: `${publicUrl}/verify/resume/${sampleToken}` }),
  ),

  notaryApproved: defineTemplate(
    'Notary approved',
    'Sent to a notary when an administrator approves their account.',
    (input: { name: string; signInLink: string }) => ({
      subject: 'Your notary account is approved',
      paragraphs: [
        hello(input.name),
        [['An administrator reviewed your commission and approved your notary account. You can now take notarizations.']],
        [['Sign in at ', { link: input.signInLink }]],
      ],
    }),
    (publicUrl) => ({ name: 'Nora Notary', signInLink: `${publicUrl}/login` }),
  ),

  notaryRejected: defineTemplate(
    'Notary not approved',
    'Sent to a notary when an administrator turns their application down, with the reason and whom to contact.',
    (input: { name: string; reason: string; contact: string }) => ({
      subject: 'Your notary application was not approved',
      paragraphs: [
        hello(input.name),
        [['An administrator reviewed your notary application and did not approve it.']],
        [[`Reason: ${input.reason}`]],
        [[`Your account cannot sign in. If you have questions, or want to send corrected details, contact ${one(input.contact)}.`]],
      ],
    }),
    () => ({ name: 'Nora Notary', reason: 'The commission number does not match the state’s register.', contact: 'support@ron.example' }),
  ),

  notaryExpiryWarning: defineTemplate(
    'Notary credential expiring',
    'Sent to an approved notary once per item when their commission, certificate, bond or insurance expires within 30 days.',
    (input: { name: string; what: string; when: string; expiresOn: string; profileLink: string }) => ({
      subject: `Your ${input.what} expires on ${input.expiresOn}`,
      paragraphs: [
        hello(input.name),
        [
          [
            `Your ${input.what} expires ${input.when}, on ${input.expiresOn}. After that day you cannot be assigned jobs or seal documents on the platform until it is renewed.`,
          ],
        ],
        [['Update your profile at ', { link: input.profileLink }]],
      ],
    }),
    (publicUrl) => ({
      name: 'Nora Notary',
      what: 'notary commission',
      when: 'in 29 days',
      expiresOn: 'Jun 30, 2031',
      profileLink: `${publicUrl}/dashboard?tab=profile`,
    }),
  ),

  notaryExpiryWarningAdmin: defineTemplate(
    'Notary credential expiring (administrators)',
    'Sent to every administrator alongside the notary’s own warning.',
    (input: { name: string; email: string; what: string; when: string; expiresOn: string; profileLink: string }) => ({
      subject: `${input.name}’s ${input.what} expires on ${input.expiresOn}`,
      paragraphs: [
        [[`The ${input.what} of the notary ${one(input.name)} (${one(input.email)}) expires ${input.when}, on ${input.expiresOn}.`]],
        [['Their profile: ', { link: input.profileLink }]],
      ],
    }),
    (publicUrl) => ({
      name: 'Nora Notary',
      email: 'nora@notary.example',
      what: 'notary commission',
      when: 'in 29 days',
      expiresOn: 'Jun 30, 2031',
      profileLink: `${publicUrl}/dashboard?tab=approvals`,
    }),
  ),

  titleCompanyApproved: defineTemplate(
    'Title company approved',
    'Sent to each pending member of a title company when an administrator approves it.',
    (input: { name: string; companyName: string; signInLink: string }) => ({
      subject: `${input.companyName} is approved on Open RON`,
      paragraphs: [
        hello(input.name),
        [[`An administrator approved ${one(input.companyName)}. Your team can now create signing requests.`]],
        [['Sign in at ', { link: input.signInLink }]],
      ],
    }),
    (publicUrl) => ({ name: 'Tia Title', companyName: 'Acme Title', signInLink: `${publicUrl}/login` }),
  ),

  titleCompanyRejected: defineTemplate(
    'Title company not approved',
    'Sent to each pending member of a title company an administrator turns down, with the reason and whom to contact.',
    (input: { name: string; companyName: string; reason: string; contact: string }) => ({
      subject: `${input.companyName} was not approved on Open RON`,
      paragraphs: [
        hello(input.name),
        [[`An administrator reviewed the application of ${one(input.companyName)} and did not approve it.`]],
        [[`Reason: ${input.reason}`]],
        [[`Your account cannot sign in. If you have questions, or want to send corrected details, contact ${one(input.contact)}.`]],
      ],
    }),
    () => ({ name: 'Tia Title', companyName: 'Acme Title', reason: 'We could not confirm the company’s license.', contact: 'support@ron.example' }),
  ),

  companyMemberInvite: defineTemplate(
    'Invitation to join a title company',
    'Sent to a person a title company’s staff or an administrator invites as an agent or title staff; the link works once and expires in 7 days.',
    (input: { name: string; companyName: string; role: 'title' | 'title_agent'; inviterName: string; hasAccount: boolean; link: string }) => {
      const company = one(input.companyName);
      const as =
        input.role === 'title' ? 'title staff, managing its agents, job types and default notary' : 'an agent, creating and following its signing jobs';
      return {
        subject: `Join ${company} on Open RON`,
        paragraphs: [
          hello(input.name),
          [[`${one(input.inviterName)} invited you to join ${company} on Open RON as ${as}.`]],
          [
            [
              input.hasAccount
                ? 'You already have an Open RON account with this email address: sign in with it, then open this link to accept (it works once and expires in 7 days):'
                : 'Open this link to create your account and join (it works once and expires in 7 days):',
            ],
          ],
          [[{ link: input.link }]],
          [['If you did not expect this invitation, ignore this email.']],
        ],
      };
    },
    (publicUrl) => ({
      name: 'Alex Agent',
      companyName: 'Acme Title',
      role: 'title_agent' as const,
      inviterName: 'Tia Title',
      hasAccount: false,
      link: `${publicUrl}/claim/${sampleToken}`,
    }),
  ),

  // Notarize Now's booked sessions (decision 051): each goes with a calendar invitation (features/gnw/calendar-invite.ts).
  sessionBooked: defineTemplate(
    'Session booked',
    'Sent to the person and to the notary when a Notarize Now session is booked, with a calendar invitation.',
    (input: { name: string; role: 'signer' | 'notary'; otherName: string; title: string; when: string; link: string }) => ({
      subject: input.role === 'notary' ? `New booked session: ${input.when}` : `Your notarization is booked: ${input.when}`,
      paragraphs: [
        hello(input.name),
        [
          input.role === 'notary'
            ? [`${one(input.otherName)} booked a session with you for "${one(input.title)}" on ${one(input.when)}.`]
            : [`Your session with ${one(input.otherName)}, notary, for "${one(input.title)}" is booked for ${one(input.when)}.`],
          ['The calendar invitation attached puts it in your calendar.'],
        ],
        [
          [
            input.role === 'notary'
              ? 'At that time, open the job to start the session:'
              : 'A few minutes before, open your job to confirm your identity and join the session:',
          ],
          [{ link: input.link }],
        ],
      ],
    }),
    (publicUrl) => ({
      name: 'Sam Signer',
      role: 'signer' as const,
      otherName: 'Nora Notary',
      title: 'Deed of trust',
      when: 'Tuesday, December 1, 9:30 AM CST',
      link: `${publicUrl}/jobs/detail?jobId=sample`,
    }),
  ),

  sessionCancelled: defineTemplate(
    'Booked session cancelled',
    'Sent to the person and to the notary when a booked Notarize Now session is cancelled, with the calendar cancellation.',
    (input: { name: string; title: string; when: string; cancelledBy: string; feeCharged: string | null }) => ({
      subject: `Cancelled: your session on ${input.when}`,
      paragraphs: [
        hello(input.name),
        [
          [`${one(input.cancelledBy)} cancelled the session for "${one(input.title)}" booked for ${one(input.when)}.`],
          ['The calendar update attached takes it off your calendar.'],
        ],
        ...(input.feeCharged
          ? [[[`The no-show fee of ${one(input.feeCharged)} was charged to the card held for it; the rest of the hold was released.`]]]
          : []),
      ],
    }),
    () => ({ name: 'Nora Notary', title: 'Deed of trust', when: 'Tuesday, December 1, 9:30 AM CST', cancelledBy: 'Sam Signer', feeCharged: null }),
  ),

  // A job's session scheduled, moved or called off by the people running the job (decision 052).
  sessionScheduled: defineTemplate(
    'Session scheduled',
    'Sent to the notary and the participants when a job’s session is scheduled, moved or called off, with the calendar invitation or its cancellation.',
    (input: { name: string; title: string; when: string; change: 'scheduled' | 'moved' | 'cancelled'; link: string }) => ({
      subject:
        input.change === 'cancelled'
          ? `Called off: the session of ${one(input.title)}`
          : input.change === 'moved'
            ? `Moved: the session of ${one(input.title)} is now ${one(input.when)}`
            : `Scheduled: the session of ${one(input.title)} on ${one(input.when)}`,
      paragraphs: [
        hello(input.name),
        [
          [
            input.change === 'cancelled'
              ? `The session for "${one(input.title)}" on ${one(input.when)} is no longer scheduled.`
              : `The session for "${one(input.title)}" is ${input.change === 'moved' ? 'now scheduled' : 'scheduled'} for ${one(input.when)}.`,
          ],
          [
            input.change === 'cancelled'
              ? 'The calendar update attached takes it off your calendar.'
              : 'The calendar invitation attached puts it in your calendar.',
          ],
        ],
        [['Open the job for the details:'], [{ link: input.link }]],
      ],
    }),
    (publicUrl) => ({
      name: 'Sam Signer',
      title: 'Deed of trust',
      when: 'Tuesday, December 1, 3:30 PM UTC',
      change: 'scheduled' as const,
      link: `${publicUrl}/jobs/detail?jobId=sample`,
    }),
  ),

  sessionReminder: defineTemplate(
    'Booked session reminder',
    'Sent to the person and to the notary 24 hours and again 15 minutes before a booked Notarize Now session.',
    (input: { name: string; role: 'signer' | 'notary'; otherName: string; title: string; when: string; isSoon: boolean; link: string }) => ({
      subject: input.isSoon ? `Starting soon: your session at ${input.when}` : `Reminder: your session on ${input.when}`,
      paragraphs: [
        hello(input.name),
        [
          [
            `${input.isSoon ? 'In about 15 minutes' : 'Within a day'}: your session ${input.role === 'notary' ? 'with' : 'with the notary'} ${one(input.otherName)} for "${one(
              input.title,
            )}", ${one(input.when)}.`,
          ],
          [input.role === 'notary' ? 'Open the job to start it:' : 'Open your job to confirm your identity and join:'],
          [{ link: input.link }],
        ],
      ],
    }),
    (publicUrl) => ({
      name: 'Sam Signer',
      role: 'signer' as const,
      otherName: 'Nora Notary',
      title: 'Deed of trust',
      when: 'Tuesday, December 1, 9:30 AM CST',
      isSoon: true,
      link: `${publicUrl}/jobs/detail?jobId=sample`,
    }),
  ),
};

export type MailTemplateName = keyof typeof mailTemplates;

/** Every template rendered with its sample facts, in the order above, for the administrators' preview page. */
export function renderTemplatePreviews(publicUrl: string): MailTemplatePreview[] {
  return (Object.keys(mailTemplates) as MailTemplateName[]).map((name) => {
    const template = mailTemplates[name] as MailTemplate<unknown>;
    return { name, title: template.title, purpose: template.purpose, ...template.render(template.sample(publicUrl)) };
  });
}
