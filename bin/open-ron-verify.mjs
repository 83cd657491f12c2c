#!/usr/bin/env node
// The offline archive verifier's command: `npx open-ron-verify archive.zip`. The verifier is
// TypeScript shared with the web page, run here through tsx (a dependency of the project).
import { register } from 'tsx/esm/api';

register();
const { runVerifyCommand } = await import('../scripts/open-ron-verify.ts');
process.exitCode = await runVerifyCommand(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
