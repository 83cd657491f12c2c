import { useState } from 'react';
import { formatDateTime } from '#shared/dates.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { useCalendarFeed, useMakeFeed, useRevokeFeed } from '#web/api/calendar.ts';

const messageOf = (caught: unknown) => (caught instanceof ApiError ? caught.message : 'That did not work. Check your connection and try again.');

/**
 * The secret address calendar apps subscribe to (decision 052): made here, shown once with a copy
 * button, replaced or turned off with a question first.
 */
export function FeedPanel() {
  const feed = useCalendarFeed();
  const make = useMakeFeed();
  const revoke = useRevokeFeed();
  const { dialog, ask } = useConfirmDialog();
  const [shownUrl, setShownUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const isActive = feed.data?.isActive ?? false;

  const makeAddress = async () => {
    if (isActive) {
      const answer = await ask({
        title: 'Make a new calendar address?',
        description: 'The address you use now stops working at once; calendar apps that subscribe to it must subscribe to the new one.',
        confirmLabel: 'Make a new address',
      });
      if (answer === null) return;
    }
    setError(null);
    setNotice(null);
    try {
      const made = await make.mutateAsync(undefined);
      setShownUrl(made.url ?? null);
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  const turnOff = async () => {
    const answer = await ask({
      title: 'Turn off your calendar address?',
      description: 'Calendar apps that subscribe to it stop receiving your sessions and events.',
      confirmLabel: 'Turn it off',
      confirmTone: 'danger',
    });
    if (answer === null) return;
    setError(null);
    try {
      await revoke.mutateAsync(undefined);
      setShownUrl(null);
      setNotice('Your calendar address is off.');
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  const copy = async () => {
    if (!shownUrl) return;
    try {
      await navigator.clipboard.writeText(shownUrl);
      setNotice('The address is copied. Paste it into your calendar app.');
    } catch {
      setNotice('Select the address and copy it yourself: this browser did not let the page copy it.');
    }
  };

  return (
    <section className="card stack calendar-feed" aria-labelledby="calendar-feed-title">
      {dialog}
      <h2 id="calendar-feed-title">See this calendar in Google, Outlook or Apple Calendar</h2>
      <p>
        Your calendar app can subscribe to a private address that lists your sessions, availability and events. Anyone with the address can read them, so keep
        it to yourself.
      </p>
      <FormAlert message={error} />
      <FormAlert message={notice} tone="success" />
      {shownUrl ? (
        <div className="stack">
          <div className="field">
            <label htmlFor="calendar-feed-url">Your calendar address (shown only now)</label>
            <input id="calendar-feed-url" className="calendar-feed-url" readOnly value={shownUrl} onFocus={(focus) => focus.target.select()} />
          </div>
          <div>
            <button type="button" className="button primary" onClick={() => void copy()}>
              Copy the address
            </button>
          </div>
          <p className="field-hint">
            Google Calendar: Other calendars, From URL. Outlook: Add calendar, Subscribe from web. Apple Calendar: File, New Calendar Subscription.
          </p>
        </div>
      ) : isActive && feed.data?.createdAt ? (
        <p>
          Your address was made {formatDateTime(feed.data.createdAt)}
          {feed.data.lastReadAt ? ` and was last read by a calendar app ${formatDateTime(feed.data.lastReadAt)}` : ' and no calendar app has read it yet'}. For
          your safety it is shown only once; make a new one to see an address again.
        </p>
      ) : feed.isLoading ? (
        <p role="status">Loading…</p>
      ) : (
        <p>You have no calendar address yet.</p>
      )}
      <div className="actions">
        <button type="button" className={isActive || shownUrl ? 'button' : 'button primary'} onClick={() => void makeAddress()} disabled={make.isPending}>
          {isActive ? 'Make a new address' : 'Make my calendar address'}
        </button>
        {isActive ? (
          <button type="button" className="button" onClick={() => void turnOff()} disabled={revoke.isPending}>
            Turn off the address
          </button>
        ) : null}
      </div>
    </section>
  );
}
