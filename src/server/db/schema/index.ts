export * from './users.ts';
export * from './auth.ts';
export * from './invites.ts';
export * from './notaries.ts';
export * from './title-companies.ts';
export * from './email.ts';
export * from './audit.ts';
export * from './jobs.ts';
