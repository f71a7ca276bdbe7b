export function SchemasPage() {
  return (
    <section aria-labelledby="schemas-heading">
      <h1 id="schemas-heading">Schemas</h1>
      <p className="muted">The group schema viewer and editor is not built yet.</p>
    </section>
  );
}
