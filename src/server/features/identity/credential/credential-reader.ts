import type { DocumentType } from '#shared/identity.ts';
import { analyseCard } from './card-credential.ts';
import type { CredentialReading, StatedPerson } from './credential-checks.ts';
import { analysePassport } from './passport-credential.ts';
import { stopPassportReader } from './passport-zone.ts';

export type { CredentialReading, StatedPerson } from './credential-checks.ts';

export interface CredentialImages {
  documentType: DocumentType;
  front?: Buffer;
  back?: Buffer;
  passport?: Buffer;
}

/**
 * Credential analysis of a government photo ID: reads the licence or ID card barcode
 * (AAMVA PDF417 on the back) or the passport's machine-readable zone, and checks that it is
 * readable, well-formed, unexpired and names the person who stated `person`. Every check carries
 * a sentence for the signer; `passed` is true only when every check passed. An unreadable image
 * gives the readable check alone. Everything runs offline from node_modules.
 */
export async function analyseCredential(input: CredentialImages, person: StatedPerson, now: Date): Promise<CredentialReading> {
  return input.documentType === 'passport'
    ? analysePassport(input.passport, person, now)
    : analyseCard(input.documentType, input.front, input.back, person, now);
}

/** Stops the OCR worker kept between passport readings (tests, shutdown). */
export async function stopCredentialReader(): Promise<void> {
  await stopPassportReader();
}
