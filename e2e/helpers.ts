import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';

export function readBootstrapUrl(): string {
  const port = process.env.E2E_PORT ?? '3210';
  const state = JSON.parse(fs.readFileSync(path.join(os.tmpdir(), `ron-e2e-${port}.json`), 'utf8')) as { bootstrapUrl: string };
  return state.bootstrapUrl;
}

let counter = 0;
export function uniqueEmail(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.test`;
}

export async function registerSigner(page: Page, name: string, email: string, password: string) {
  await page.goto('/register/user');
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
}

export async function logIn(page: Page, email: string, password: string, query = '') {
  await page.goto(`/login${query}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export interface CaughtMail {
  to: string[];
  subject: string;
  text: string;
}

/** Waits for a message to arrive at the SMTP server that e2e/start-server.mjs runs. */
export async function waitForMail(to: string, subjectPattern: RegExp, timeoutMs = 15_000): Promise<CaughtMail> {
  const port = process.env.E2E_PORT ?? '3210';
  const file = path.join(os.tmpdir(), `ron-e2e-${port}-mail.jsonl`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const mails = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as CaughtMail);
    const found = mails.reverse().find((mail) => mail.to.includes(to.toLowerCase()) && subjectPattern.test(mail.subject));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no mail to ${to} matching ${subjectPattern} within ${timeoutMs} ms`);
}

export async function logOut(page: Page) {
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login$/);
}
