interface PagerProps {
  page: number;
  pageSize: number;
  total: number;
  /** What the list holds, as "user" and "users". */
  noun: { one: string; many: string };
  /** The navigation's name: "Pages of users". */
  label: string;
  onPage: (page: number) => void;
}

/** Previous and Next under a list, with where the reader is: "Page 2 of 5 (93 users)". Nothing when everything fits on one page. */
export function Pager({ page, pageSize, total, noun, label, onPage }: PagerProps) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1) return null;
  return (
    <nav className="actions pager" aria-label={label}>
      <button type="button" className="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages} ({total} {total === 1 ? noun.one : noun.many})
      </span>
      <button type="button" className="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
