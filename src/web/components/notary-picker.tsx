import { useEffect, useState } from 'react';
import type { z } from 'zod';
import type { notaryOptionSchema } from '#shared/jobs.ts';
import { Combobox } from '#web/components/combobox.tsx';
import { useNotaryLookup } from '#web/api/notaries.ts';
import { getUsStateName } from '#shared/us-states.ts';

export type NotaryOption = z.infer<typeof notaryOptionSchema>;

/** The text typed, once the person pauses: one search per pause, not per key. */
function useSettledText(text: string, delayMs = 200): string {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(text), delayMs);
    return () => clearTimeout(timer);
  }, [text, delayMs]);
  return settled;
}

function describePlace(notary: NotaryOption): string {
  const place = [notary.county ? `${notary.county} County` : null, notary.commissionState ? getUsStateName(notary.commissionState) : null]
    .filter(Boolean)
    .join(', ');
  return notary.isOnline ? `${place} · Online now` : place;
}

interface NotaryPickerProps {
  label: string;
  value: NotaryOption | null;
  onChange: (notary: NotaryOption | null) => void;
  error?: string | null;
  disabled?: boolean;
  /** Whether this person may look notaries up at all (the route's roles). */
  canSearch: boolean;
}

/** Searches approved notaries by name, county or state and shows each one's state and county. */
export function NotaryPicker({ label, value, onChange, error, disabled, canSearch }: NotaryPickerProps) {
  const [search, setSearch] = useState('');
  const settled = useSettledText(search);
  const lookup = useNotaryLookup(settled, canSearch);
  return (
    <Combobox<NotaryOption>
      label={label}
      hint="Type a name, county or state (such as Virginia or VA)."
      error={error ?? lookup.error?.message ?? null}
      options={lookup.data?.items ?? []}
      value={value}
      onChange={onChange}
      onSearch={setSearch}
      getKey={(notary) => notary.userId}
      getText={(notary) => notary.name}
      renderOption={(notary) => (
        <>
          <span>{notary.name}</span>
          <span className="option-detail">{describePlace(notary)}</span>
        </>
      )}
      isLoading={lookup.isFetching || search !== settled}
      emptyMessage={settled.trim() ? `No approved notary matches “${settled.trim()}”.` : 'No approved notaries yet.'}
      clearLabel="Clear the notary"
      disabled={disabled}
    />
  );
}
