/**
 * A ref for a `<table className="table">`: gives every body cell its column's header as
 * `data-label`, kept up to date as rows come and go. On a narrow screen the stylesheet shows each
 * row as a card and each cell with its label before it (styles.css), so the headers are written once,
 * in the `<thead>`. A header whose text is only for screen readers (an actions column) labels nothing.
 */
export function labelCellsByHeaders(table: HTMLTableElement | null): (() => void) | undefined {
  if (!table) return undefined;
  const apply = () => {
    const headers = [...(table.tHead?.rows[0]?.cells ?? [])].map((header) =>
      header.querySelector('.visually-hidden') ? '' : (header.textContent ?? '').trim(),
    );
    for (const body of table.tBodies) {
      for (const row of body.rows) {
        [...row.cells].forEach((cell, index) => {
          const label = headers[index] ?? '';
          if (label && cell.dataset.label !== label) cell.dataset.label = label;
          if (!label && cell.dataset.label !== undefined) delete cell.dataset.label;
        });
      }
    }
  };
  apply();
  const observer = new MutationObserver(apply);
  observer.observe(table, { childList: true, subtree: true });
  return () => observer.disconnect();
}
