/**
 * The sentence a successful answer carries (`{ message: '…' }`), or the page's own sentence when the
 * answer has none (an empty 204, or a record without a message).
 */
export function readServerMessage(data: unknown, fallback: string): string {
  if (data && typeof data === 'object' && 'message' in data) {
    const { message } = data as { message: unknown };
    if (typeof message === 'string' && message.trim()) return message.trim();
  }
  return fallback;
}
