export function LoadingWorkspace() {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      Loading workspace…
    </div>
  );
}
