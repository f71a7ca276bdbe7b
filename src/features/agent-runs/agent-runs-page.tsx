export function AgentRunsPage() {
  return (
    <section aria-labelledby="runs-heading">
      <h1 id="runs-heading">Agent runs</h1>
      <p className="muted">The agent run workspace is not built yet.</p>
    </section>
  );
}
