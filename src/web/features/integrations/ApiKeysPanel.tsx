import './integrations.css';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  apiKeyListSchema,
  apiKeyNameMaxLength,
  apiKeyScopeLabels,
  apiKeyScopes,
  createApiKeyInputSchema,
  createdApiKeySchema,
  type ApiKey,
  type ApiKeyScope,
  type CreatedApiKey,
} from '#shared/api-keys.ts';
import { formatDateTime } from '#shared/dates.ts';
import { companyQueryOptions } from '#web/api/title-companies.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { paths } from '#web/paths.ts';

/** Query keys of a company's API keys (decision 054). */
export const apiKeyQueryKeys = {
  all: ['api-keys'] as const,
  company: (companyId: string) => [...apiKeyQueryKeys.all, companyId] as const,
};

function apiKeysQueryOptions(companyId: string) {
  return queryOptions({
    queryKey: apiKeyQueryKeys.company(companyId),
    queryFn: () => api.get(`/api/title-companies/${encodeURIComponent(companyId)}/api-keys`, apiKeyListSchema),
    retry: false,
  });
}

/** "Last used Nov 23, 2026, 2:05 PM EST", or that it never was. */
function describeLastUse(key: ApiKey): string {
  return key.lastUsedAt ? `Last used ${formatDateTime(key.lastUsedAt)}` : 'Never used';
}

function describeScopes(scopes: readonly ApiKeyScope[]): string {
  return scopes.map((scope) => apiKeyScopeLabels[scope].label).join(', ');
}

/**
 * A title company's API keys: its title staff make one (a name, what it may do), see it once with
 * a copy button, see when each was last used, and revoke one after a question. Administrators see
 * and revoke them. Shown on the company page only to those who manage the open company.
 */
export function ApiKeysPanel({ companyId }: { companyId: string }) {
  // The company's facts are the page's own query (read from the cache): they say whether the viewer manages it.
  const company = useQuery(companyQueryOptions(companyId));
  const canManage = Boolean(company.data?.permissions.canManageAgents);
  return canManage && company.data ? <ApiKeys companyId={companyId} companyName={company.data.name} /> : null;
}

function ApiKeys({ companyId, companyName }: { companyId: string; companyName: string }) {
  const queryClient = useQueryClient();
  const keys = useQuery(apiKeysQueryOptions(companyId));
  const { dialog, outcome, busyId, decide } = useDecision();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const items = keys.data?.items ?? [];
  const live = items.filter((key) => !key.revokedAt);
  const revoked = items.filter((key) => key.revokedAt);

  const revoke = (key: ApiKey, opener: HTMLElement) =>
    decide(
      key.id,
      opener,
      {
        title: `Revoke the API key “${key.name}”?`,
        description: `Every call made with it (${key.prefix}…) is refused from now on. This cannot be undone: whatever uses it needs a new key.`,
        confirmLabel: 'Revoke key',
        cancelLabel: 'Keep it',
        confirmTone: 'danger',
      },
      async () => {
        const answer = await api.delete(`/api/title-companies/api-keys/${encodeURIComponent(key.id)}`);
        if (created?.apiKey.id === key.id) setCreated(null);
        await queryClient.invalidateQueries({ queryKey: apiKeyQueryKeys.company(companyId) });
        return { message: readServerMessage(answer, `The key “${key.name}” is revoked.`) };
      },
    );

  return (
    <section className="card stack" aria-labelledby="api-keys-title">
      <div className="row wrap between">
        <h2 id="api-keys-title">API keys</h2>
        <Link to={paths.apiReference}>API reference</Link>
      </div>
      <p className="muted">
        Software your company uses (a closing system, a CRM) calls the API with a key as {companyName}: only the company’s jobs, only what the key’s scopes
        allow. Each call is recorded.
      </p>
      {dialog}
      {outcome}
      <FormAlert message={keys.error?.message ?? null} />
      {keys.isPending ? <p role="status">Loading API keys…</p> : null}
      {created ? <NewKeyNotice created={created} onDone={() => setCreated(null)} /> : null}
      {keys.data?.canCreate && !created ? (
        <NewKeyForm
          companyId={companyId}
          onCreated={async (result) => {
            setCreated(result);
            await queryClient.invalidateQueries({ queryKey: apiKeyQueryKeys.company(companyId) });
          }}
        />
      ) : null}
      {keys.data && live.length === 0 ? (
        <p className="empty">
          {keys.data.canCreate ? 'No API keys in use. Make one for each piece of software that should call the API.' : 'This company has no API keys in use.'}
        </p>
      ) : null}
      {live.length > 0 ? (
        <ul className="review-list" aria-label="API keys in use">
          {live.map((key) => (
            <li key={key.id} className="review-item api-key-item">
              <h3>{key.name}</h3>
              <p className="muted">
                <code>{key.prefix}…</code> · {describeScopes(key.scopes)}
              </p>
              <p className="muted">
                {describeLastUse(key)} · made {formatDateTime(key.createdAt)}
                {key.createdByName ? ` by ${key.createdByName}` : ''}
              </p>
              <div className="actions">
                <button type="button" className="button danger" disabled={busyId !== null} onClick={(event) => void revoke(key, event.currentTarget)}>
                  Revoke<span className="visually-hidden"> {key.name}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {revoked.length > 0 ? (
        <details>
          <summary>Revoked keys ({revoked.length})</summary>
          <ul className="review-list" aria-label="Revoked API keys">
            {revoked.map((key) => (
              <li key={key.id} className="review-item">
                <h3>{key.name}</h3>
                <p className="muted">
                  <code>{key.prefix}…</code> · revoked {formatDateTime(key.revokedAt ?? '')} · {describeLastUse(key)}
                </p>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

/** The form for a new key: its name and what it may do. */
function NewKeyForm({ companyId, onCreated }: { companyId: string; onCreated: (created: CreatedApiKey) => Promise<void> }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['jobs:read']);
  const { formRef, errors, show } = useFieldErrors();
  const create = useMutation({
    mutationFn: (input: { name: string; scopes: ApiKeyScope[] }) =>
      api.post(`/api/title-companies/${encodeURIComponent(companyId)}/api-keys`, input, createdApiKeySchema),
    onSuccess: async (result) => {
      setName('');
      setScopes(['jobs:read']);
      await onCreated(result);
    },
  });
  const toggle = (scope: ApiKeyScope, isOn: boolean) =>
    setScopes((current) => (isOn ? apiKeyScopes.filter((each) => each === scope || current.includes(each)) : current.filter((each) => each !== scope)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = createApiKeyInputSchema.safeParse({ name, scopes });
    if (!show(parsed.success ? {} : toFieldErrors(parsed.error.issues)) || !parsed.success) return;
    create.mutate(parsed.data);
  };
  const serverError = create.error ? (create.error instanceof ApiError ? create.error.message : 'The key could not be made. Please try again.') : null;
  return (
    <form ref={formRef} className="stack api-key-form" onSubmit={submit} noValidate aria-labelledby="new-api-key-title">
      <h3 id="new-api-key-title">New API key</h3>
      <Field
        label="Name"
        value={name}
        maxLength={apiKeyNameMaxLength + 20}
        hint="What will use it, e.g. “Closing software”: you will tell keys apart by it."
        error={errors.name}
        onChange={(event) => setName(event.target.value)}
      />
      <fieldset className="stack">
        <legend>What it may do</legend>
        {apiKeyScopes.map((scope) => (
          <label key={scope} className="checkbox">
            <input type="checkbox" checked={scopes.includes(scope)} onChange={(event) => toggle(scope, event.target.checked)} />
            <span>
              <span className="strong">{apiKeyScopeLabels[scope].label}</span> <span className="muted">{apiKeyScopeLabels[scope].description}</span>
            </span>
          </label>
        ))}
        {errors.scopes ? <p className="field-error">{errors.scopes}</p> : null}
      </fieldset>
      <FormAlert message={serverError} />
      <div>
        <button type="submit" className="button primary" disabled={create.isPending}>
          {create.isPending ? 'Making the key…' : 'Make API key'}
        </button>
      </div>
    </form>
  );
}

/** The new key, shown this once, with a copy button. */
function NewKeyNotice({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopyState('copied');
    } catch {
      setCopyState('failed');
    }
  };
  return (
    <div className="alert success stack api-key-shown" role="status" aria-labelledby="api-key-shown-title">
      <h3 id="api-key-shown-title">Your new key “{created.apiKey.name}”</h3>
      <p>
        Copy it now and keep it somewhere safe: it is shown only this once. Send it as <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      <code className="api-key-value" aria-label="The new API key" data-testid="new-api-key">
        {created.key}
      </code>
      <div className="row wrap">
        <button type="button" className="button primary" onClick={() => void copy()}>
          Copy key
        </button>
        <button type="button" className="button" onClick={onDone}>
          I have saved it
        </button>
      </div>
      {copyState === 'copied' ? <p>Copied to the clipboard.</p> : null}
      {copyState === 'failed' ? <p>The browser did not allow copying: select the key and copy it by hand.</p> : null}
    </div>
  );
}
