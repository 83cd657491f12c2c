/** "Central Standard Time (Chicago)": a zone as people say it, with the place it is named after. */
export function describeZone(timeZone: string): string {
  const place = (timeZone.split('/').pop() ?? timeZone).replace(/_/g, ' ');
  try {
    const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'long' })
      .formatToParts(new Date())
      .find((part) => part.type === 'timeZoneName')?.value;
    return name && name !== timeZone ? `${name} (${place})` : place;
  } catch {
    return place;
  }
}
