import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  companyMemberRoleLabels,
  companyMemberRoles,
  inviteAgentInputSchema,
  inviteAgentResponseSchema,
  type CompanyAgent,
  type TitleCompany,
} from '#shared/title-companies.ts';
import { companyAgentsQueryOptions, titleCompanyKeys } from '#web/api/title-companies.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ModalDialog } from '#web/components/modal-dialog.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { describeMember, describeMemberRemoval } from './company-words.ts';

/**
 * The company's title staff and agents, and the invitations not yet accepted. Those who manage the
 * company invite people by email and remove them; everyone else reads the list.
 */
export function CompanyAgents({ company, isAdmin }: { company: TitleCompany; isAdmin: boolean }) {
  const queryClient = useQueryClient();
  const agents = useQuery(companyAgentsQueryOptions(company.id));
  const { dialog, outcome, busyId, decide } = useDecision();
  const { notice, show } = useNotice();
  const [isInviting, setIsInviting] = useState(false);
  const canManage = company.permissions.canManageAgents && company.status !== 'closed';
  const now = new Date();
  // A person the server does not let read the members (some agents) sees no section rather than a refusal.
  if (agents.error instanceof ApiError && agents.error.status === 403) return null;
  const items = agents.data?.items ?? [];
  const active = items.filter((agent) => agent.status === 'active');
  const invited = items.filter((agent) => agent.status === 'invited');

  const remove = (agent: CompanyAgent, opener: HTMLElement) =>
    decide(agent.id, opener, { ...describeMemberRemoval(agent, company.name), cancelLabel: 'Not now', confirmTone: 'danger' }, async () => {
      const answer = await api.delete(`/api/title-companies/agents/${encodeURIComponent(agent.id)}`);
      await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.company(company.id) });
      const fallback = agent.status === 'invited' ? `The invitation to ${agent.name} was withdrawn.` : `${agent.name} was removed from ${company.name}.`;
      return { message: readServerMessage(answer, fallback) };
    });

  const renderList = (list: CompanyAgent[], label: string) => (
    <ul className="review-list" aria-label={label}>
      {list.map((agent) => (
        <li key={agent.id} className="review-item">
          <h3>{agent.name}</h3>
          <p className="muted">
            {agent.email} · {describeMember(agent, now)}
          </p>
          {canManage ? (
            <div className="actions">
              <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void remove(agent, event.currentTarget)}>
                {agent.status === 'invited' ? 'Withdraw invitation' : 'Remove'}
                <span className="visually-hidden"> {agent.status === 'invited' ? `to ${agent.name}` : agent.name}</span>
              </button>
            </div>
          ) : null}
        </li>
      ))}
    </ul>
  );

  return (
    <section className="card stack" aria-labelledby="company-agents-title">
      <div className="row wrap between">
        <h2 id="company-agents-title">People</h2>
        {canManage ? (
          <button type="button" className="button primary" onClick={() => setIsInviting(true)}>
            Invite someone
          </button>
        ) : null}
      </div>
      {dialog}
      {outcome}
      {notice}
      <FormAlert message={agents.error?.message ?? null} />
      {agents.isPending ? <p role="status">Loading the company’s people…</p> : null}
      {agents.data && items.length === 0 ? (
        <p className="empty">
          {canManage ? 'No one works for this company yet. Use Invite someone to send the first invitation.' : 'No one works for this company yet.'}
        </p>
      ) : null}
      {active.length > 0 ? (
        <>
          <p className="strong">Members</p>
          {renderList(active, 'Members')}
        </>
      ) : null}
      {invited.length > 0 ? (
        <>
          <p className="strong">Invited, not joined yet</p>
          {renderList(invited, 'Invitations')}
        </>
      ) : null}
      {isInviting ? (
        <InviteDialog company={company} canInviteStaff={isAdmin} onClose={() => setIsInviting(false)} onInvited={(message) => show(message)} />
      ) : null}
    </section>
  );
}

function InviteDialog({
  company,
  canInviteStaff,
  onClose,
  onInvited,
}: {
  company: TitleCompany;
  canInviteStaff: boolean;
  onClose: () => void;
  onInvited: (message: string) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<(typeof companyMemberRoles)[number]>('title_agent');
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const { formRef, errors, show } = useFieldErrors();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = inviteAgentInputSchema.safeParse({ name, email, role });
    if (!show(parsed.success ? {} : toFieldErrors(parsed.error.issues)) || !parsed.success) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    setIsSaving(true);
    try {
      const result = await api.post(`/api/title-companies/${encodeURIComponent(company.id)}/agents`, parsed.data, inviteAgentResponseSchema);
      await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.company(company.id) });
      onClose();
      onInvited(result.message);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The invitation could not be sent. Please try again.');
      setIsSaving(false);
    }
  };

  return (
    <ModalDialog title={`Invite someone to ${company.name}`} onClose={onClose}>
      <form ref={formRef} className="stack" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={error} />
        <Field label="Full name" autoComplete="off" value={name} error={errors.name} onChange={(event) => setName(event.target.value)} autoFocus />
        <Field
          label="Email"
          type="email"
          autoComplete="off"
          value={email}
          error={errors.email}
          hint="They get an email with a link to join the company."
          onChange={(event) => setEmail(event.target.value)}
        />
        {canInviteStaff ? (
          <fieldset className="stack">
            <legend>They join as</legend>
            {companyMemberRoles.map((value) => (
              <label key={value} className="checkbox">
                <input type="radio" name="invite-role" value={value} checked={role === value} onChange={() => setRole(value)} />
                {value === 'title'
                  ? `${companyMemberRoleLabels[value]}: manages the company, its agents and job types`
                  : `${companyMemberRoleLabels[value]}: creates and follows jobs`}
              </label>
            ))}
          </fieldset>
        ) : (
          <p className="muted">They join as an agent: they create and follow the company’s jobs.</p>
        )}
        <div className="actions">
          <button type="submit" className="button primary" disabled={isSaving}>
            {isSaving ? 'Sending…' : 'Send invitation'}
          </button>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
