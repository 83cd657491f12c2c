import { describe, expect, it } from 'vitest';
import { escapeHtml } from './layout.ts';
import { mailTemplates, renderTemplatePreviews, type MailTemplateName } from './templates.ts';

const publicUrl = 'https://ron.example.test';
const names = Object.keys(mailTemplates) as MailTemplateName[];
const previews = renderTemplatePreviews(publicUrl);

/** What a reader sees of an HTML part: tags dropped, line breaks kept, entities read back. */
function visibleText(html: string): string {
  const entities: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
  return html
    .replace(/<br>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(lt|gt|quot|#39|amp);/g, (entity) => entities[entity] ?? entity);
}

describe('mail templates', () => {
  it('render every template with its sample facts: a subject, a text and a branded HTML document saying the same', () => {
    expect(previews.map((preview) => preview.name)).toEqual(names);
    expect(names.length).toBeGreaterThanOrEqual(17);
    for (const preview of previews) {
      expect(preview.title, preview.name).not.toBe('');
      expect(preview.purpose, preview.name).toMatch(/^[A-Z].*\.$/);
      expect(preview.subject, preview.name).not.toBe('');
      expect(preview.text, preview.name).not.toBe('');
      expect(preview.html, preview.name).toMatch(/^<!doctype html>\n<html lang="en">/);
      expect(preview.html, preview.name).toContain(`<title>${escapeHtml(preview.subject)}</title>`);
      expect(preview.html, preview.name).toContain('#00335b');
      expect(preview.html, preview.name).toContain('#1c4e80');
      expect(preview.html, preview.name).not.toMatch(/<script|javascript:|\son\w+=/i);
      // The HTML says what the text says, line for line; every link is a link to itself.
      const shown = visibleText(preview.html);
      for (const line of preview.text.split('\n').filter(Boolean)) expect(shown, preview.name).toContain(line);
      for (const link of preview.text.match(/https?:\/\/\S+/g) ?? []) expect(preview.html, preview.name).toContain(`href="${escapeHtml(link)}"`);
    }
  });

  it('keep the words people already receive', () => {
    const invite = mailTemplates.jobInvite.render({
      name: 'Sam Signer',
      title: 'Deed of trust',
      role: 'witness',
      isReminder: true,
      link: `${publicUrl}/claim/abc`,
    });
    expect(invite.subject).toBe('Reminder: You are invited to witness "Deed of trust"');
    expect(invite.text).toBe(
      [
        'Hello Sam Signer,',
        '',
        'You have been invited to witness "Deed of trust" on Open RON, a remote online notarization service.',
        'Open this link to accept (it works once and expires in 7 days):',
        '',
        `${publicUrl}/claim/abc`,
        '',
        'If the link has expired, ask for a new one at the request-access page.',
      ].join('\n'),
    );
    const assigned = mailTemplates.jobAssigned.render({ name: 'Nora Notary', title: 'Deed', link: `${publicUrl}/jobs/detail?jobId=1` });
    expect(assigned).toMatchObject({
      subject: 'You were assigned "Deed"',
      text: `Hello Nora Notary,\n\nYou are now the notary for "Deed".\nOpen it at ${publicUrl}/jobs/detail?jobId=1`,
    });
    const code = mailTemplates.mfaEmailCode.render({ name: 'Ada', code: '042917' });
    expect(code.subject).toBe('Your Open RON sign-in code: 042917');
    expect(code.text).toBe(
      'Hello Ada,\n\nYour sign-in code is 042917. It expires in 10 minutes.\n\nIf you did not try to sign in, change your password: someone may know it.',
    );
  });

  it('escape every value in the HTML: a name holding a script stays text', () => {
    const name = '<script>alert("x")</script> & O\'Brien';
    const mail = mailTemplates.titleCompanyRejected.render({
      name,
      companyName: '<img src=x onerror=alert(1)>',
      reason: 'Line one\n<b>line two</b>',
      contact: 'a@b.example',
    });
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).not.toContain('<b>');
    expect(mail.html).toContain('Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; O&#39;Brien,');
    expect(mail.html).toContain('<title>&lt;img src=x onerror=alert(1)&gt; was not approved on Open RON</title>');
    // A reason on several lines keeps its lines.
    expect(mail.html).toContain('Reason: Line one<br>&lt;b&gt;line two&lt;/b&gt;');
    // The text part is plain text: the name as written, on one line.
    expect(mail.text).toContain(`Hello ${name},`);
  });

  it('link only web addresses, and escape them inside the attribute', () => {
    const web = mailTemplates.passwordReset.render({ name: 'Ada', link: 'https://ron.example.test/login?resetToken=a&b="c"' });
    expect(web.html).toContain('<a href="https://ron.example.test/login?resetToken=a&amp;b=&quot;c&quot;"');
    const script = mailTemplates.passwordReset.render({ name: 'Ada', link: 'javascript:alert(1)' });
    expect(script.html).not.toContain('href=');
    expect(script.html).toContain('javascript:alert(1)');
  });

  it('never let a subject hold a line break or another control character, so no header can be added', () => {
    const hostile = 'Deed\r\nBcc: victim@example.test\u0000\u2028\u202Eend';
    const subjects = [
      mailTemplates.jobAssigned.render({ name: 'N', title: hostile, link: `${publicUrl}/x` }).subject,
      mailTemplates.jobInvite.render({ name: hostile, title: hostile, role: 'signer', isReminder: false, link: `${publicUrl}/x` }).subject,
      mailTemplates.titleCompanyApproved.render({ name: hostile, companyName: hostile, signInLink: `${publicUrl}/login` }).subject,
      mailTemplates.notaryExpiryWarningAdmin.render({
        name: hostile,
        email: 'n@x.example',
        what: 'bond',
        when: 'today',
        expiresOn: 'Jun 30, 2031',
        profileLink: publicUrl,
      }).subject,
      mailTemplates.mfaEmailCode.render({ name: 'Ada', code: '12\r\n34' }).subject,
      ...previews.map((preview) => preview.subject),
    ];
    for (const subject of subjects) expect(subject).not.toMatch(/[\p{Cc}\u2028\u2029\u202a-\u202e]/u);
    expect(subjects[0]).toBe('You were assigned "Deed Bcc: victim@example.test end"');
    // Names and titles in the body are one line too: none starts a line of its own.
    const body = mailTemplates.jobAssigned.render({ name: hostile, title: hostile, link: `${publicUrl}/x` }).text;
    expect(body.split('\n').some((line) => line.startsWith('Bcc:'))).toBe(false);
  });
});
