import type { AdminUser } from '#shared/admin-users.ts';
import type { ApprovalStatus } from '#shared/auth.ts';
import { formatDate, formatDateTime } from '#shared/dates.ts';
import { revocationReasonLabels, revocationReasons, type PlatformCertificate } from '#shared/notaries.ts';
import { roleLabels, type Role } from '#shared/roles.ts';

/** The account statuses in words, for the list, its filter and the detail. */
export const accountStatusLabels: Record<ApprovalStatus, string> = {
  active: 'Active',
  pending: 'Waiting for approval',
  disabled: 'Deactivated',
  rejected: 'Not approved',
};

function joinWithAnd(parts: string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** "Active", or with what the person has still to do: "Active; has not set a password yet and has not confirmed their email address." */
export function describeAccountStatus(user: Pick<AdminUser, 'status' | 'hasPassword' | 'emailVerifiedAt'>): string {
  const missing: string[] = [];
  if (!user.hasPassword) missing.push('has not set a password yet');
  if (!user.emailVerifiedAt) missing.push('has not confirmed their email address');
  const status = accountStatusLabels[user.status];
  return missing.length ? `${status}; ${joinWithAnd(missing)}.` : status;
}

/** When the person last signed in, as a date people read, or that they never have. */
export function describeLastSignIn(lastLoginAt: string | null, format: (iso: string) => string = formatDateTime): string {
  return lastLoginAt ? format(lastLoginAt) : 'Never signed in';
}

/** The roles as their labels, in the order of the roles list: "Administrator, Notary". */
export function describeRoles(userRoles: readonly Role[]): string {
  return userRoles.length ? userRoles.map((role) => roleLabels[role]).join(', ') : 'No role';
}

export interface ConfirmWords {
  title: string;
  description: string;
  confirmLabel: string;
}

/** The question before giving or taking away a role, saying what changes for the person. */
export function describeRoleChange(change: 'add' | 'remove', role: Role, name: string): ConfirmWords {
  const label = roleLabels[role];
  if (change === 'add') {
    const power = role === 'admin' ? ' Administrators can see and change every account, company and job.' : '';
    return {
      title: `Give ${name} the ${label} role?`,
      description: `${name} may then do what the ${label} role allows, as well as what they do now.${power}`,
      confirmLabel: 'Give role',
    };
  }
  return {
    title: `Take the ${label} role from ${name}?`,
    description: `${name} can no longer do what only the ${label} role allows. Their jobs, journal and history stay as they are.`,
    confirmLabel: 'Remove role',
  };
}

/** The question before switching an account off or on again. */
export function describeStatusChange(next: 'active' | 'disabled', name: string): ConfirmWords {
  if (next === 'disabled') {
    return {
      title: `Deactivate ${name}?`,
      description: `${name} is signed out everywhere at once and cannot sign in until an administrator reactivates the account. Their jobs, journal and audit history stay as they are.`,
      confirmLabel: 'Deactivate',
    };
  }
  return {
    title: `Reactivate ${name}?`,
    description: `${name} can sign in again, with the roles and records the account had before.`,
    confirmLabel: 'Reactivate',
  };
}

/** The question before removing the saved signature and initials. */
export function describeSignatureReset(name: string): ConfirmWords {
  return {
    title: `Reset ${name}’s saved signature and initials?`,
    description: `They are removed from the account, and ${name} makes new ones the next time they sign. Documents already signed keep the signature they were signed with.`,
    confirmLabel: 'Reset signature and initials',
  };
}

/** A platform certificate's state as a sentence an administrator reads. */
export function describePlatformCertificate(certificate: PlatformCertificate, format: (iso: string) => string = formatDate): string {
  const validity = `valid from ${format(certificate.notBefore)} until ${format(certificate.notAfter)}`;
  if (certificate.status === 'revoked' && certificate.revokedAt) {
    const reason =
      certificate.revocationReason && certificate.revocationReason !== 'unspecified' ? `, because ${revocationReasonLabels[certificate.revocationReason]}` : '';
    const by = certificate.revokedByName ? ` by ${certificate.revokedByName}` : '';
    return `Revoked on ${format(certificate.revokedAt)}${by}${reason}. It was ${validity}; verifiers are told it is revoked.`;
  }
  if (certificate.status === 'expired') return `Expired: it was ${validity}.`;
  return `In force: ${validity}. Verifiers are told it is good.`;
}

/** The question before revoking, which cannot be undone. */
export function describeCertificateRevocation(name: string, serialNumber: string): ConfirmWords {
  return {
    title: `Revoke the certificate of ${name}?`,
    description: `The certificate with serial number ${serialNumber} is revoked for good: from now on the platform tells every verifier so, and documents signed with it after now will not be trusted. ${name}’s next notarization gets a new certificate.`,
    confirmLabel: 'Revoke certificate',
  };
}

/** The reasons as choices, in the order of the list. */
export const revocationReasonChoices = revocationReasons.map((reason) => ({
  value: reason,
  label: `${revocationReasonLabels[reason].charAt(0).toUpperCase()}${revocationReasonLabels[reason].slice(1)}`,
}));
