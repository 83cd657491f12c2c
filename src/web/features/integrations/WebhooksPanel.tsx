import './integrations.css';
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createWebhookEndpointInputSchema,
  webhookEndpointWithSecretSchema,
  webhookEventLabels,
  webhookEventTypes,
  webhookReplaySchema,
  type WebhookEndpoint,
  type WebhookEventType,
} from '#shared/webhooks.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ModalDialog } from '#web/components/modal-dialog.tsx';
import { Pager } from '#web/components/pager.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { webhookDeliveriesQueryOptions, webhookEndpointsQueryOptions, webhookKeys } from './webhook-queries.ts';
import { describeDelivery, describeEndpointEvents } from './webhook-words.ts';

/**
 * A title company's webhooks (decision 055), for its title staff: register an endpoint (its signing
 * secret shown once), see each endpoint's delivery log and replay a delivery, give it a new secret,
 * disable it. For anyone else the server refuses the list, and the panel shows nothing.
 */
export function WebhooksPanel({ companyId }: { companyId: string }) {
  const queryClient = useQueryClient();
  const endpoints = useQuery(webhookEndpointsQueryOptions(companyId));
  const { dialog, outcome, busyId, decide } = useDecision();
  const [isAdding, setIsAdding] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string; message: string } | null>(null);
  const [openLog, setOpenLog] = useState<string | null>(null);

  if (endpoints.error instanceof ApiError && (endpoints.error.status === 403 || endpoints.error.status === 404)) return null;
  const items = endpoints.data?.items ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: webhookKeys.endpoints(companyId) });

  const disable = (endpoint: WebhookEndpoint, opener: HTMLElement) =>
    decide(
      endpoint.id,
      opener,
      {
        title: `Disable the endpoint ${endpoint.url}?`,
        description:
          'It receives no more events, and deliveries still waiting are not sent. This cannot be undone: to receive events again, register an endpoint anew (with a new secret). Its delivery log stays.',
        confirmLabel: 'Disable endpoint',
        cancelLabel: 'Keep it',
        confirmTone: 'danger',
      },
      async () => {
        const answer = await api.post(`/api/title-companies/${encodeURIComponent(companyId)}/webhooks/${encodeURIComponent(endpoint.id)}/disable`);
        await refresh();
        return { message: readServerMessage(answer, 'The endpoint is disabled.') };
      },
    );

  const rotate = (endpoint: WebhookEndpoint, opener: HTMLElement) =>
    decide(
      endpoint.id,
      opener,
      {
        title: `Give ${endpoint.url} a new signing secret?`,
        description: 'The current secret stops signing at once: update your receiver with the new one, shown once on the next screen.',
        confirmLabel: 'Make a new secret',
        cancelLabel: 'Keep the current one',
        confirmTone: 'danger',
      },
      async () => {
        const answer = await api.post(
          `/api/title-companies/${encodeURIComponent(companyId)}/webhooks/${encodeURIComponent(endpoint.id)}/rotate-secret`,
          undefined,
          webhookEndpointWithSecretSchema,
        );
        setSecret({ url: answer.endpoint.url, secret: answer.secret, message: answer.message });
        await refresh();
        return { message: 'The endpoint has a new signing secret.' };
      },
    );

  return (
    <section className="card stack" aria-labelledby="company-webhooks-title">
      <div className="row wrap between">
        <h2 id="company-webhooks-title">Webhooks</h2>
        <button type="button" className="button primary" onClick={() => setIsAdding(true)}>
          Add endpoint
        </button>
      </div>
      <p className="muted">
        Your systems can be told when something happens to the company’s jobs and invoices: each event is sent, signed, to the HTTPS endpoints you add here, and
        tried again for 24 hours until it is taken.
      </p>
      {dialog}
      {outcome}
      {secret ? <SecretOnce {...secret} onDone={() => setSecret(null)} /> : null}
      <FormAlert message={endpoints.error?.message ?? null} />
      {endpoints.isPending ? <p role="status">Loading webhooks…</p> : null}
      {endpoints.data && items.length === 0 ? (
        <p className="empty">No endpoints yet. Add one with the URL where your system receives events, and choose the events it wants.</p>
      ) : null}
      {items.length > 0 ? (
        <ul className="review-list" aria-label="Webhook endpoints">
          {items.map((endpoint) => (
            <li key={endpoint.id} className="review-item">
              <div className="row wrap between">
                <h3 className="webhook-url">{endpoint.url}</h3>
                <span className={`badge webhook-${endpoint.status}`}>{endpoint.status === 'active' ? 'Active' : 'Disabled'}</span>
              </div>
              {endpoint.description ? <p>{endpoint.description}</p> : null}
              <p className="muted">Events: {describeEndpointEvents(endpoint)}</p>
              <div className="actions">
                <button
                  type="button"
                  className="button"
                  aria-expanded={openLog === endpoint.id}
                  onClick={() => setOpenLog((current) => (current === endpoint.id ? null : endpoint.id))}
                >
                  {openLog === endpoint.id ? 'Hide deliveries' : 'Show deliveries'}
                  <span className="visually-hidden"> of {endpoint.url}</span>
                </button>
                {endpoint.status === 'active' ? (
                  <>
                    <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void rotate(endpoint, event.currentTarget)}>
                      New secret<span className="visually-hidden"> for {endpoint.url}</span>
                    </button>
                    <button type="button" className="button danger" disabled={busyId !== null} onClick={(event) => void disable(endpoint, event.currentTarget)}>
                      Disable<span className="visually-hidden"> {endpoint.url}</span>
                    </button>
                  </>
                ) : null}
              </div>
              {openLog === endpoint.id ? <DeliveryLog endpoint={endpoint} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {isAdding ? (
        <AddEndpointDialog
          companyId={companyId}
          onClose={() => setIsAdding(false)}
          onCreated={(created) => {
            setIsAdding(false);
            setSecret(created);
            setOpenLog(created.endpointId);
          }}
        />
      ) : null}
    </section>
  );
}

/** The signing secret, shown once with a copy button, until the reader says they have it. */
function SecretOnce({ url, secret, message, onDone }: { url: string; secret: string; message: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: select the secret and copy it yourself.');
    }
  };
  return (
    <div className="alert success stack webhook-secret" role="status">
      <p>{message}</p>
      <p>
        Signing secret of <span className="strong">{url}</span>:
      </p>
      <label htmlFor={`webhook-secret-${secret.slice(-8)}`} className="visually-hidden">
        Signing secret
      </label>
      <input
        id={`webhook-secret-${secret.slice(-8)}`}
        className="webhook-secret-value"
        readOnly
        value={secret}
        spellCheck={false}
        onFocus={(event) => event.currentTarget.select()}
      />
      <div className="actions">
        <button type="button" className="button" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" className="button primary" onClick={onDone}>
          I have stored it
        </button>
      </div>
      {copied ? <p>{copied}</p> : null}
    </div>
  );
}

/** An endpoint's deliveries, newest first, ten to a page, each with a Replay button. */
function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [page, setPage] = useState(1);
  const queryClient = useQueryClient();
  const deliveries = useQuery(webhookDeliveriesQueryOptions(endpoint.id, page));
  const { notice, show } = useNotice();
  const [busy, setBusy] = useState<string | null>(null);
  // Times are told relative to when the log was read (it is read again every few seconds while something waits).
  const now = deliveries.dataUpdatedAt;

  const replay = async (deliveryId: string) => {
    setBusy(deliveryId);
    try {
      const answer = await api.post(
        `/api/title-companies/webhooks/${encodeURIComponent(endpoint.id)}/deliveries/${encodeURIComponent(deliveryId)}/replay`,
        undefined,
        webhookReplaySchema,
      );
      setPage(1);
      await queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(endpoint.id) });
      show(answer.message);
    } catch (caught) {
      show(caught instanceof ApiError ? caught.message : 'The event could not be sent again. Please try again.', 'error');
    } finally {
      setBusy(null);
    }
  };

  const data = deliveries.data;
  return (
    <div className="stack webhook-log">
      <div className="row wrap between">
        <h4>Deliveries</h4>
        <button type="button" className="button" onClick={() => void deliveries.refetch()}>
          Refresh
        </button>
      </div>
      {notice}
      <FormAlert message={deliveries.error?.message ?? null} />
      {deliveries.isPending ? <p role="status">Loading deliveries…</p> : null}
      {data && data.items.length === 0 ? (
        <p className="empty">Nothing sent yet. Deliveries appear here when one of the chosen events happens to the company’s jobs or invoices.</p>
      ) : null}
      {data && data.items.length > 0 ? (
        <ul className="webhook-deliveries" aria-label={`Deliveries to ${endpoint.url}`}>
          {data.items.map((delivery) => {
            const words = describeDelivery(delivery, now);
            return (
              <li key={delivery.id} className={`webhook-delivery webhook-delivery-${delivery.status}`}>
                <div className="row wrap between">
                  <span className="strong">
                    {words.event}
                    {words.isReplay ? ' (replay)' : ''}
                  </span>
                  <span className={`badge webhook-delivery-badge-${delivery.status}`}>{words.status}</span>
                </div>
                <p className="muted">
                  {words.response} · {words.when} · {words.tries}
                  {words.next ? ` · ${words.next}` : ''}
                </p>
                {delivery.lastError && delivery.status !== 'delivered' ? <p className="field-error">{delivery.lastError}</p> : null}
                {endpoint.status === 'active' ? (
                  <div className="actions">
                    <button type="button" className="button" disabled={busy !== null} onClick={() => void replay(delivery.id)}>
                      Replay
                      <span className="visually-hidden">
                        {' '}
                        {words.event} of {words.when}
                      </span>
                    </button>
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      {data ? (
        <Pager
          page={data.page}
          pageSize={data.pageSize}
          total={data.total}
          noun={{ one: 'delivery', many: 'deliveries' }}
          label="Pages of deliveries"
          onPage={setPage}
        />
      ) : null}
    </div>
  );
}

/** The URL, the events (checkboxes) and a description; the server checks the address and answers the secret. */
function AddEndpointDialog({
  companyId,
  onClose,
  onCreated,
}: {
  companyId: string;
  onClose: () => void;
  onCreated: (created: { url: string; secret: string; message: string; endpointId: string }) => void;
}) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const { formRef, errors, show } = useFieldErrors();

  const toggle = (type: WebhookEventType, isChecked: boolean) =>
    setEvents((current) =>
      isChecked ? webhookEventTypes.filter((candidate) => candidate === type || current.includes(candidate)) : current.filter((item) => item !== type),
    );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = createWebhookEndpointInputSchema.safeParse({ url, events, description });
    if (!show(parsed.success ? {} : toFieldErrors(parsed.error.issues)) || !parsed.success) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    setIsSaving(true);
    try {
      const answer = await api.post(`/api/title-companies/${encodeURIComponent(companyId)}/webhooks`, parsed.data, webhookEndpointWithSecretSchema);
      await queryClient.invalidateQueries({ queryKey: webhookKeys.endpoints(companyId) });
      onCreated({ url: answer.endpoint.url, secret: answer.secret, message: answer.message, endpointId: answer.endpoint.id });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The endpoint could not be added. Please try again.');
      setIsSaving(false);
    }
  };

  return (
    <ModalDialog title="Add a webhook endpoint" onClose={onClose} isWide>
      <form ref={formRef} className="stack" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={error} />
        <Field
          label="Endpoint URL"
          type="url"
          inputMode="url"
          value={url}
          error={errors.url}
          hint="An https:// address of your system on the public internet, such as https://example.com/hooks/open-ron."
          onChange={(event) => setUrl(event.target.value)}
          autoFocus
        />
        <fieldset className="stack" aria-invalid={errors.events ? true : undefined}>
          <legend>Events</legend>
          <p className="field-hint">Only the events ticked are sent to this endpoint.</p>
          <div className="webhook-events">
            {webhookEventTypes.map((type) => (
              <label key={type} className="checkbox">
                <input type="checkbox" checked={events.includes(type)} onChange={(event) => toggle(type, event.target.checked)} />
                {webhookEventLabels[type]}
              </label>
            ))}
          </div>
          {errors.events ? <p className="field-error">{errors.events}</p> : null}
        </fieldset>
        <Field
          label="Description (optional)"
          value={description}
          error={errors.description}
          hint="What receives these events, so your colleagues know, such as “Closing system”."
          onChange={(event) => setDescription(event.target.value)}
        />
        <div className="actions">
          <button type="submit" className="button primary" disabled={isSaving}>
            {isSaving ? 'Adding…' : 'Add endpoint'}
          </button>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
