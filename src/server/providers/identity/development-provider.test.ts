import { describe, expect, it } from 'vitest';
import { chooseQuestionKeys, scoreAttempt } from '#server/features/identity/kba/kba-rules.ts';
import { identityPolicies } from '#shared/identity-policies.ts';
import { buildDevelopmentQuestions, createDevelopmentIdentityProvider, developmentProviderNotice } from './development-provider.ts';
import { createIdentityDataProvider, type KbaQuestion, type PersonData } from './identity-data-provider.ts';

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const maria: PersonData = {
  legalName: 'Maria Elena Garcia',
  birthDate: '1984-07-19',
  address: { street: '1208 Oak Street', city: 'Austin', state: 'TX', postalCode: '78701' },
};

/** What each question must hold as its answer, worked out by hand from Maria's data. */
const mariaAnswers: Record<string, string> = {
  birth_year: '1984',
  birth_month: 'July',
  birth_day: '19',
  birth_weekday: 'Thursday',
  birth_decade: '1980s',
  house_number: '1208',
  street_name: 'Oak Street',
  city: 'Austin',
  state: 'Texas',
  zip_code: '78701',
  zip_last_two: '01',
  zip_first_digit: '7',
  last_name_initial: 'G',
  first_name_initial: 'M',
  last_name_length: '6',
};

const normalize = (label: string) => label.trim().toLowerCase();
const correctLabel = (question: KbaQuestion) => question.choices.find((choice) => choice.id === question.correctChoiceId)?.label;

function expectWellFormed(question: KbaQuestion, choicesPerQuestion: number) {
  expect(question.prompt).toMatch(/\?$/);
  expect(question.choices.length).toBeGreaterThanOrEqual(choicesPerQuestion);
  expect(new Set(question.choices.map((choice) => choice.id)).size).toBe(question.choices.length);
  expect(new Set(question.choices.map((choice) => normalize(choice.label))).size).toBe(question.choices.length);
  expect(question.choices.filter((choice) => choice.id === question.correctChoiceId)).toHaveLength(1);
}

describe('the development identity provider', () => {
  it('says it is the development provider and that its questions prove nothing', () => {
    const provider = createDevelopmentIdentityProvider();
    expect(provider).toMatchObject({ name: 'development', isDevelopment: true, notice: developmentProviderNotice });
    expect(developmentProviderNotice).toBe(
      'These questions come from the development provider: they are made from what you typed and prove nothing about your identity.',
    );
  });

  it('asks at least 10 distinct questions, each answered by what the person typed', async () => {
    const questions = await createDevelopmentIdentityProvider({ random: seededRandom(1) }).questionPool(maria, 5);
    const keys = questions.map((question) => question.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBeGreaterThanOrEqual(10);
    expect(keys.sort()).toEqual(Object.keys(mariaAnswers).sort());
    for (const question of questions) {
      expectWellFormed(question, 5);
      expect(correctLabel(question)).toBe(mariaAnswers[question.key]);
    }
  });

  it('shuffles the choices so the answer is not always in the same place', async () => {
    const positions = new Set<number>();
    for (let seed = 1; seed <= 30; seed += 1) {
      const [year] = buildDevelopmentQuestions(maria, 5, seededRandom(seed)).filter((question) => question.key === 'birth_year');
      positions.add(year!.choices.findIndex((choice) => choice.id === year!.correctChoiceId));
    }
    expect(positions.size).toBeGreaterThanOrEqual(4);
  });

  it('never offers the answer twice, whatever the case the person typed it in', () => {
    const person: PersonData = { ...maria, address: { street: '7 main street', city: 'austin', state: 'tx', postalCode: '78701-1234' } };
    for (let seed = 1; seed <= 50; seed += 1) {
      const questions = buildDevelopmentQuestions(person, 5, seededRandom(seed));
      for (const question of questions) expectWellFormed(question, 5);
      const byKey = Object.fromEntries(questions.map((question) => [question.key, correctLabel(question)]));
      expect(byKey).toMatchObject({ city: 'austin', street_name: 'main street', house_number: '7', state: 'Texas', zip_code: '78701' });
    }
  });

  it('reads "Last, First" names and drops suffixes such as Jr.', () => {
    const commaName = buildDevelopmentQuestions({ ...maria, legalName: 'Okafor, Chidi' }, 5, seededRandom(2));
    const suffixName = buildDevelopmentQuestions({ ...maria, legalName: 'John Q. Smith Jr.' }, 5, seededRandom(2));
    const answer = (questions: KbaQuestion[], key: string) => correctLabel(questions.find((question) => question.key === key)!);
    expect([answer(commaName, 'first_name_initial'), answer(commaName, 'last_name_initial'), answer(commaName, 'last_name_length')]).toEqual(['C', 'O', '6']);
    expect([answer(suffixName, 'first_name_initial'), answer(suffixName, 'last_name_initial'), answer(suffixName, 'last_name_length')]).toEqual([
      'J',
      'S',
      '5',
    ]);
  });

  it('asks nothing about the birth date when it is not a real date, and nothing about a house number the street lacks', () => {
    const questions = buildDevelopmentQuestions(
      { ...maria, birthDate: '1984-02-31', address: { ...maria.address, street: 'Rural Route Box' } },
      5,
      seededRandom(3),
    );
    const keys = questions.map((question) => question.key);
    expect(keys.filter((key) => key.startsWith('birth_') || key === 'house_number' || key === 'street_name')).toEqual([]);
    expect(keys).toContain('city');
  });

  it('leaves out a question whose answers cannot fill the number of choices asked for', () => {
    const questions = buildDevelopmentQuestions(maria, 8, seededRandom(4));
    expect(questions.map((question) => question.key)).not.toContain('birth_weekday');
    for (const question of questions) expectWellFormed(question, 8);
    expect(questions.length).toBeGreaterThanOrEqual(10);
  });

  describe.each(identityPolicies.map((policy) => [policy.code, policy.kba] as const))('with the %s row', (_code, rule) => {
    it('gives enough questions for the first quiz and every retake, and a quiz answered from the typed data passes', async () => {
      const provider = createDevelopmentIdentityProvider({ random: seededRandom(5) });
      const questions = await provider.questionPool(maria, rule.choicesPerQuestion);
      for (const question of questions) expectWellFormed(question, rule.choicesPerQuestion);
      const poolKeys = questions.map((question) => question.key);
      const random = seededRandom(6);
      const first = chooseQuestionKeys(rule, poolKeys, null, random);
      const quizzes = [first];
      for (let retake = 1; retake <= rule.retakes; retake += 1) quizzes.push(chooseQuestionKeys(rule, poolKeys, first, random));

      const startedAt = new Date('2026-03-02T15:00:00.000Z');
      const deadlineAt = new Date(startedAt.getTime() + rule.timeLimitSeconds * 1000);
      for (const keys of quizzes) {
        const asked = keys.map((key) => questions.find((question) => question.key === key)!);
        const answerKey = asked.map((question) => ({ questionKey: question.key, correctChoiceId: question.correctChoiceId }));
        // The person picks the choice whose label is what they typed.
        const answers = asked.map((question) => ({
          questionId: question.key,
          choiceId: question.choices.find((choice) => choice.label === mariaAnswers[question.key])!.id,
        }));
        expect(scoreAttempt(rule, answerKey, answers, new Date(startedAt.getTime() + 30_000), deadlineAt)).toEqual({
          correct: rule.questionCount,
          total: rule.questionCount,
          passed: true,
          timedOut: false,
        });
      }
    });
  });
});

describe('choosing the identity data provider', () => {
  it('refuses the development provider in production', () => {
    expect(() => createIdentityDataProvider({ NODE_ENV: 'production' })).toThrow(/No identity data provider is configured for production/);
    expect(() => createIdentityDataProvider({ NODE_ENV: 'production', IDENTITY_DEV_PROVIDER: 'yes' })).toThrow(/set IDENTITY_DEV_PROVIDER=allow/);
  });

  it('runs the development provider in production only when IDENTITY_DEV_PROVIDER=allow', () => {
    expect(createIdentityDataProvider({ NODE_ENV: 'production', IDENTITY_DEV_PROVIDER: 'allow' })).toMatchObject({ name: 'development', isDevelopment: true });
  });

  it('uses the development provider outside production', async () => {
    for (const env of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'test' }]) {
      const provider = createIdentityDataProvider(env);
      expect(provider.isDevelopment).toBe(true);
      expect((await provider.questionPool(maria, 5)).length).toBeGreaterThanOrEqual(10);
    }
  });
});
