import '@fontsource/dancing-script/400.css';
import '@fontsource/great-vibes/400.css';
import '@fontsource/caveat/400.css';
import { useEffect, useEffectEvent, useId, useState } from 'react';
import { typedSignatureTextSchema } from '#shared/signatures.ts';
import { Field } from '#web/components/field.tsx';
import { createCanvas, getContext, inkColor, isTransparent, toSignaturePng, trimCanvas } from './canvas-image.ts';

export const scriptFonts = [
  { family: 'Dancing Script', label: 'Dancing Script' },
  { family: 'Great Vibes', label: 'Great Vibes' },
  { family: 'Caveat', label: 'Caveat' },
] as const;
export type ScriptFont = (typeof scriptFonts)[number]['family'];

const fontSize = 96;
const maxLength = 60;

/** Renders text in a script font onto a canvas and exports it as a trimmed PNG. */
async function renderTypedSignature(text: string, family: ScriptFont): Promise<string | null> {
  const font = `${fontSize}px "${family}"`;
  // The font file loads on first use; drawing before it arrives would use a fallback face.
  await document.fonts.load(font, text);
  const measuring = getContext(createCanvas(1, 1));
  measuring.font = font;
  const width = Math.ceil(measuring.measureText(text).width) + fontSize;
  const canvas = createCanvas(width, fontSize * 2);
  const context = getContext(canvas);
  context.font = font;
  context.fillStyle = inkColor;
  context.textBaseline = 'middle';
  context.fillText(text, fontSize / 2, fontSize);
  const trimmed = trimCanvas(canvas, isTransparent, 12);
  return trimmed ? toSignaturePng(trimmed) : null;
}

interface TypedSignatureProps {
  /** "Type your full name" or "Type your initials". */
  label: string;
  defaultText?: string;
  onChange: (dataUrl: string | null) => void;
  onError: (message: string) => void;
  /** Told of each drawing as it starts (the font may still be arriving), so a save can wait for it. */
  onRendering?: (pending: Promise<string | null>) => void;
}

/** Type mode: a name in one of a few script fonts, drawn onto a canvas. */
export function TypedSignature({ label, defaultText = '', onChange, onError, onRendering }: TypedSignatureProps) {
  const [text, setText] = useState(defaultText);
  const [family, setFamily] = useState<ScriptFont>(scriptFonts[0].family);
  const groupName = useId();
  const emitChange = useEffectEvent(onChange);
  const emitError = useEffectEvent(onError);
  const emitRendering = useEffectEvent((pending: Promise<string | null>) => onRendering?.(pending));

  const parsed = typedSignatureTextSchema.safeParse(text);
  const textError = parsed.success ? null : (parsed.error.issues[0]?.message ?? null);

  useEffect(() => {
    const trimmed = text.trim();
    if (!trimmed || textError) {
      emitChange(null);
      return;
    }
    let isCurrent = true;
    const pending = renderTypedSignature(trimmed, family);
    emitRendering(pending);
    pending.then(
      (dataUrl) => {
        if (isCurrent) emitChange(dataUrl);
      },
      () => {
        if (isCurrent) emitError('The font could not be loaded. Try another style, or draw or upload instead.');
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [text, family, textError]);

  return (
    <div className="stack">
      <Field label={label} value={text} maxLength={maxLength} autoComplete="off" error={textError} onChange={(event) => setText(event.target.value)} />
      <fieldset className="signature-fonts">
        <legend>Style</legend>
        <div className="signature-choices">
          {scriptFonts.map((font) => (
            <label key={font.family} className="signature-choice">
              <input type="radio" name={groupName} value={font.family} checked={family === font.family} onChange={() => setFamily(font.family)} />
              <span className="signature-font-sample" style={{ fontFamily: `"${font.family}", cursive` }} aria-hidden="true">
                {text.trim() || 'Your name'}
              </span>
              <span className="signature-font-name">{font.label}</span>
            </label>
          ))}
        </div>
      </fieldset>
    </div>
  );
}
