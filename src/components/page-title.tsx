/** The tab's title for the page shown: React puts a rendered <title> in the document head. */
export function PageTitle({ title }: { title: string }) {
  return <title>{`${title} — Metadata & Agents Console`}</title>;
}
