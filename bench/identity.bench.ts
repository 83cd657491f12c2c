/**
 * Benchmark of credential analysis: how long the server takes to read and check an ID,
 * in this process, on images made by test/id-documents.ts.
 *
 *   npm run bench:identity        (tsx bench/identity.bench.ts, about a minute)
 *
 * Cases: the back of a licence (PDF417) as PNG, as JPEG at quality 70, and tilted 6 degrees (the
 * reader retries rotated copies); a passport photo page (OCR of the machine-readable zone). Each
 * case runs once to warm up (wasm, the OCR worker), then BENCH_IDENTITY_RUNS times (10); the result
 * of every run is checked (it must pass), and the median, the slowest run and this process's CPU per
 * analysis are printed. The machine's load average is printed before and after.
 */
import os from 'node:os';
import sharp from 'sharp';
import { analyseCredential, stopCredentialReader } from '#server/features/identity/credential/credential-reader.ts';
import { makeAamvaText, makeLicenceBack, makeLicenceFront, makePassportPage, samplePassport } from '../test/id-documents.ts';

const runs = Number(process.env.BENCH_IDENTITY_RUNS ?? 10);
const now = new Date('2026-11-23T12:00:00Z');

interface Case {
  name: string;
  input: Parameters<typeof analyseCredential>[0];
  person: Parameters<typeof analyseCredential>[1];
}

async function cases(): Promise<Case[]> {
  const licencePerson = { legalName: 'John Quincy Sample', birthDate: '1990-01-15' };
  const text = makeAamvaText();
  const back = await makeLicenceBack({ text });
  const front = await makeLicenceFront();
  const jpeg = await sharp(back).jpeg({ quality: 70 }).toBuffer();
  const tilted = await makeLicenceBack({ text, rotation: 6 });
  const passport = await makePassportPage();
  const passportPerson = { legalName: `${samplePassport.givenNames} ${samplePassport.lastName}`, birthDate: samplePassport.birthDate };
  return [
    { name: 'licence back, PNG', input: { documentType: 'drivers_license', front, back }, person: licencePerson },
    { name: 'licence back, JPEG q70', input: { documentType: 'drivers_license', front, back: jpeg }, person: licencePerson },
    { name: 'licence back, tilted 6°', input: { documentType: 'drivers_license', front, back: tilted }, person: licencePerson },
    { name: 'passport page (OCR)', input: { documentType: 'passport', passport }, person: passportPerson },
  ];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

console.log(
  `Open RON credential analysis benchmark: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, ${new Date().toISOString()}`,
);
console.log(
  `Load average before: ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}; ${runs} runs per case after one warm-up.`,
);
console.log('');
console.log('| case | median ms | slowest ms | CPU ms per analysis | result |');
console.log('|---|---|---|---|---|');
for (const item of await cases()) {
  const warm = await analyseCredential(item.input, item.person, now);
  if (!warm.passed) throw new Error(`${item.name} did not pass: ${JSON.stringify(warm.checks)}`);
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    const reading = await analyseCredential(item.input, item.person, now);
    times.push(performance.now() - started);
    if (!reading.passed) throw new Error(`${item.name} run ${run + 1} did not pass`);
  }
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    `| ${item.name} | ${median(times).toFixed(0)} | ${Math.max(...times).toFixed(0)} | ${((cpu.user + cpu.system) / 1000 / runs).toFixed(0)} | passed ${runs} of ${runs} |`,
  );
}
await stopCredentialReader();
console.log('');
console.log(
  `Load average after: ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
console.log('CPU is this process only; the OCR runs in a worker thread of this process, so it is included.');
