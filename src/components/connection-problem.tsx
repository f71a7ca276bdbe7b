/** Why nothing is sent with this profile (no valid instance URL, no upstream), said once at the top of a page. */
export function ConnectionProblem({ problem }: { problem: string | undefined }) {
  if (!problem) return null;
  return (
    <div className="error-panel" role="alert">
      <h3>Connection not set up</h3>
      <p>{problem}</p>
    </div>
  );
}
