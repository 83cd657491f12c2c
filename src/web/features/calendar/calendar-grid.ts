import type { CalendarItem } from '#shared/calendar.ts';
import { toInstant } from '#shared/availability.ts';

/** The calendar page's date arithmetic on local days written YYYY-MM-DD (no zone: they are days). */
export type CalendarView = 'month' | 'week' | 'agenda';
export const calendarViews: readonly CalendarView[] = ['month', 'week', 'agenda'];
/** How many days the agenda lists from its first day. */
export const agendaDays = 30;

const dayMs = 86_400_000;
const asDate = (day: string) => new Date(`${day}T00:00:00Z`);
const asDay = (date: Date) => date.toISOString().slice(0, 10);

export function addDays(day: string, days: number): string {
  return asDay(new Date(asDate(day).getTime() + days * dayMs));
}

/** 0 for Sunday … 6 for Saturday. */
export function weekdayOf(day: string): number {
  return asDate(day).getUTCDay();
}

/** The Sunday that starts the week of `day`. */
export function weekStart(day: string): string {
  return addDays(day, -weekdayOf(day));
}

export function addMonths(day: string, months: number): string {
  const date = asDate(day);
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1));
  return asDay(target);
}

/** The days a view shows around `anchor`: [first, end) — six whole weeks for a month, so the grid never changes height. */
export function viewDays(view: CalendarView, anchor: string): { first: string; end: string } {
  if (view === 'week') {
    const first = weekStart(anchor);
    return { first, end: addDays(first, 7) };
  }
  if (view === 'agenda') return { first: anchor, end: addDays(anchor, agendaDays) };
  const first = weekStart(`${anchor.slice(0, 7)}-01`);
  return { first, end: addDays(first, 42) };
}

/** The anchor after moving one step forward (1) or back (-1) in a view. */
export function stepAnchor(view: CalendarView, anchor: string, direction: 1 | -1): string {
  if (view === 'month') return addMonths(anchor, direction);
  return addDays(anchor, direction * (view === 'week' ? 7 : agendaDays));
}

/** The instant a local day begins in a zone; where a zone skips midnight, the first hour that exists. */
export function dayStartInstant(day: string, timeZone: string): string {
  for (const time of ['00:00', '01:00', '02:00']) {
    const instant = toInstant(`${day}T${time}`, timeZone);
    if (instant) return instant.toISOString();
  }
  return `${day}T00:00:00.000Z`;
}

/** Every day of [first, end). */
export function daysBetween(first: string, end: string): string[] {
  const days: string[] = [];
  for (let day = first; day < end; day = addDays(day, 1)) days.push(day);
  return days;
}

/**
 * The items of each day, in start order: an item that runs past midnight shows on every day it
 * covers; one that ends exactly at midnight does not reach the next day.
 */
export function itemsByDay(items: readonly CalendarItem[]): Map<string, CalendarItem[]> {
  const byDay = new Map<string, CalendarItem[]>();
  for (const item of items) {
    const firstDay = item.localStart.slice(0, 10);
    const lastLocal = item.localEnd ?? item.localStart;
    const endsAtMidnight = item.localEnd !== null && lastLocal.slice(11) === '00:00' && lastLocal.slice(0, 10) > firstDay;
    const lastDay = endsAtMidnight ? addDays(lastLocal.slice(0, 10), -1) : lastLocal.slice(0, 10);
    for (let day = firstDay; day <= lastDay; day = addDays(day, 1)) {
      const list = byDay.get(day) ?? [];
      list.push(item);
      byDay.set(day, list);
    }
  }
  return byDay;
}

const monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const weekdayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "December 2026", "Nov 29 – Dec 5, 2026", "From Dec 3, 2026" as the view's heading. */
export function viewHeading(view: CalendarView, anchor: string): string {
  const short = (day: string) => `${monthNames[Number(day.slice(5, 7)) - 1]!.slice(0, 3)} ${Number(day.slice(8, 10))}`;
  if (view === 'month') return `${monthNames[Number(anchor.slice(5, 7)) - 1]} ${anchor.slice(0, 4)}`;
  const { first, end } = viewDays(view, anchor);
  const last = addDays(end, -1);
  if (view === 'week') return `${short(first)} – ${short(last)}, ${last.slice(0, 4)}`;
  return `${short(first)}, ${first.slice(0, 4)} – ${short(last)}, ${last.slice(0, 4)}`;
}

/** "Thursday, December 3" for a day's heading. */
export function dayHeading(day: string): string {
  return `${weekdayNames[weekdayOf(day)]}, ${monthNames[Number(day.slice(5, 7)) - 1]} ${Number(day.slice(8, 10))}`;
}

/** "9:00 AM" from a local date-time's clock part. */
export function clockOf(localDateTime: string): string {
  const hour = Number(localDateTime.slice(11, 13));
  const minute = localDateTime.slice(14, 16);
  return `${hour % 12 === 0 ? 12 : hour % 12}:${minute} ${hour < 12 ? 'AM' : 'PM'}`;
}

/** "9:00 AM – 9:30 AM", or the start alone when no end was recorded; a day it does not start on says "until". */
export function itemTimes(item: CalendarItem, day: string): string {
  const startsToday = item.localStart.slice(0, 10) === day;
  const endsToday = item.localEnd !== null && item.localEnd.slice(0, 10) === day;
  if (!item.localEnd) return clockOf(item.localStart);
  if (startsToday && endsToday) return `${clockOf(item.localStart)} – ${clockOf(item.localEnd)}`;
  if (startsToday) return `From ${clockOf(item.localStart)}`;
  if (endsToday) return `Until ${clockOf(item.localEnd)}`;
  return 'All day';
}
