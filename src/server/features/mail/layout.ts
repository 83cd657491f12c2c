import { toSingleLine } from '#shared/text.ts';

/**
 * The shared shape of every email: a body written once as paragraphs of lines, from which both the
 * plain-text part and the HTML part are made, so the two always say the same thing. A line is a
 * list of pieces: plain text, a link, or text to stand out (a sign-in code).
 */
export type MailPiece = string | { link: string } | { strong: string };
export type MailLine = MailPiece[];
export type MailParagraph = MailLine[];

export interface MailDraft {
  subject: string;
  paragraphs: MailParagraph[];
}

/** What a template gives the outbox: one subject line, and the same words as text and as HTML. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export const brandColor = '#00335b';
export const brandColor2 = '#1c4e80';

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe inside HTML elements and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => htmlEscapes[character] ?? character);
}

/** Only web links become links; anything else is shown as text. */
const isWebLink = (href: string) => /^https?:\/\//i.test(href);

function pieceAsText(piece: MailPiece): string {
  if (typeof piece === 'string') return piece;
  return 'link' in piece ? piece.link : piece.strong;
}

/** Line breaks inside free text (a reason) stay line breaks in HTML. */
const escapeWithBreaks = (text: string) => escapeHtml(text).replace(/\r\n|\r|\n/g, '<br>');

function pieceAsHtml(piece: MailPiece): string {
  if (typeof piece === 'string') return escapeWithBreaks(piece);
  if ('strong' in piece) return `<strong style="font-size:20px;letter-spacing:2px;">${escapeHtml(piece.strong)}</strong>`;
  if (!isWebLink(piece.link)) return escapeHtml(piece.link);
  const href = escapeHtml(piece.link);
  return `<a href="${href}" style="color:${brandColor2};text-decoration:underline;word-break:break-all;">${href}</a>`;
}

function renderText(draft: MailDraft): string {
  return draft.paragraphs.map((paragraph) => paragraph.map((line) => line.map(pieceAsText).join('')).join('\n')).join('\n\n');
}

/**
 * One HTML document around the paragraphs: a brand bar naming Open RON, the message on a white card,
 * inline styles only (mail programs drop style sheets), a language and a title for screen readers,
 * and every value escaped.
 */
function renderHtml(subject: string, draft: MailDraft): string {
  const paragraphs = draft.paragraphs
    .map((paragraph) => `<p style="margin:0 0 16px;">${paragraph.map((line) => line.map(pieceAsHtml).join('')).join('<br>')}</p>`)
    .join('\n');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title>`,
    '</head>',
    `<body style="margin:0;padding:0;background:#f3f6f9;color:#14202b;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;">`,
    '<div style="max-width:600px;margin:0 auto;padding:16px;">',
    `<div style="background:${brandColor};color:#ffffff;padding:14px 20px;font-size:20px;font-weight:bold;border-radius:8px 8px 0 0;">Open RON</div>`,
    `<div style="background:#ffffff;padding:20px;border:1px solid #d5dde6;border-top:4px solid ${brandColor2};border-radius:0 0 8px 8px;overflow-wrap:anywhere;">`,
    paragraphs,
    '</div>',
    '<p style="margin:12px 0 0;color:#5a6775;font-size:13px;">Open RON, remote online notarization</p>',
    '</div>',
    '</body>',
    '</html>',
  ].join('\n');
}

/** The subject on one line (no CR, LF or other control character can reach the header), the text and the HTML. */
export function renderMail(draft: MailDraft): RenderedMail {
  const subject = toSingleLine(draft.subject);
  return { subject, text: renderText(draft), html: renderHtml(subject, draft) };
}
