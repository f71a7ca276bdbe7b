import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title';
import { ComparisonView } from '../components/comparison-view';
import { useRunStore } from '../../../hooks/run-store';
import { useEntries } from '../../../hooks/use-history';

/** /compare/:a/:b — two runs of this browser's history (or held now) side by side. */
export function ComparePage() {
  const { a = '', b = '' } = useParams();
  const store = useRunStore();
  const [entryA] = useEntries([a]).entries;
  // Back to where run A was made: its agent's page.
  const agentId = (store.forEntry(a)?.request ?? entryA?.request)?.agentId;
  return (
    <div className="compare-page">
      <PageTitle title="Compare two runs" />
      <h1>Compare two runs</h1>
      <p className="muted">
        <Link to={agentId ? `/runs/${encodeURIComponent(agentId)}` : '/runs'}>Back to agent runs</Link> · This address shows the comparison while both runs are in this browser’s history.
      </p>
      {/* Keyed by the pair: nothing read for one comparison shows in the next. */}
      <ComparisonView key={`${a}/${b}`} ids={[a, b]} />
    </div>
  );
}
