/**
 * The offer ring's chime: two short tones made with the Web Audio API (no audio file to fetch). A
 * browser that blocks sound until the person has used the page, or has no Web Audio, stays silent:
 * the ring is muted, never an error.
 */

type AudioContextClass = new () => AudioContext;

let context: AudioContext | null = null;

function findAudioContextClass(scope: typeof globalThis): AudioContextClass | null {
  const withPrefixed = scope as typeof globalThis & { webkitAudioContext?: AudioContextClass };
  return withPrefixed.AudioContext ?? withPrefixed.webkitAudioContext ?? null;
}

/** How long a suspended context may take to resume before the chime is given up (a blocked one never resumes). */
const resumeWaitMs = 300;

/** Plays the chime; true when it was scheduled, false when the browser gave no sound. */
export async function playOfferTone(scope: typeof globalThis = globalThis): Promise<boolean> {
  try {
    const AudioContextType = findAudioContextClass(scope);
    if (!AudioContextType) return false;
    context ??= new AudioContextType();
    const audio = context;
    if (audio.state === 'suspended') {
      await Promise.race([audio.resume().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, resumeWaitMs))]);
    }
    if (audio.state !== 'running') return false;
    const start = audio.currentTime + 0.02;
    [880, 1175].forEach((frequency, index) => {
      const at = start + index * 0.22;
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = 'sine';
      oscillator.frequency.setValueAtTime(frequency, at);
      // A soft start and end: no click.
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.25, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.2);
      oscillator.connect(gain);
      gain.connect(audio.destination);
      oscillator.start(at);
      oscillator.stop(at + 0.21);
    });
    return true;
  } catch {
    return false;
  }
}

/** Forgets the shared context (tests give each case its own stand-in). */
export function resetOfferTone(): void {
  context = null;
}
