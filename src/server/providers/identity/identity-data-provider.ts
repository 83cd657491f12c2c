import { createDevelopmentIdentityProvider } from './development-provider.ts';

/** What the person states about themselves when the identity step starts. */
export interface PersonData {
  legalName: string;
  /** YYYY-MM-DD */
  birthDate: string;
  address: { street: string; city: string; state: string; postalCode: string };
}

export interface KbaQuestion {
  /** Stable name of what is asked (birth_year, city...), the unit of question turnover on a retake. */
  key: string;
  prompt: string;
  choices: { id: string; label: string }[];
  correctChoiceId: string;
}

/** Where knowledge-based questions come from: a commercial identity-data service, or the development stand-in. */
export interface IdentityDataProvider {
  name: string;
  /** True when the questions prove nothing about identity. */
  isDevelopment: boolean;
  /** A sentence shown with the questions, or null. */
  notice: string | null;
  /** Every question the provider can ask about the person, each with at least `choicesPerQuestion` choices. */
  questionPool(person: PersonData, choicesPerQuestion: number): Promise<KbaQuestion[]>;
}

/**
 * The provider for this deployment. Only the development provider exists so far; it is refused in
 * production unless IDENTITY_DEV_PROVIDER=allow says the operator knows its questions prove nothing.
 */
export function createIdentityDataProvider(env: { NODE_ENV?: string; IDENTITY_DEV_PROVIDER?: string }): IdentityDataProvider {
  if (env.NODE_ENV === 'production' && env.IDENTITY_DEV_PROVIDER !== 'allow') {
    throw new Error(
      'No identity data provider is configured for production: the development provider makes its questions from what the person types and proves nothing about identity. Configure a real provider, or set IDENTITY_DEV_PROVIDER=allow to run with the development one anyway.',
    );
  }
  return createDevelopmentIdentityProvider();
}
