import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title';
import { ComparisonView } from '../components/comparison-view';

/** /compare/:a/:b — two runs of this browser's history (or held now) side by side. */
export function ComparePage() {
  const { a = '', b = '' } = useParams();
  return (
    <div className="compare-page">
      <PageTitle title="Compare two runs" />
      <h1>Compare two runs</h1>
      <p className="muted">
        <Link to="/runs">Back to agent runs</Link> · This address shows the comparison while both runs are in this browser’s history.
      </p>
      {/* Keyed by the pair: nothing read for one comparison shows in the next. */}
      <ComparisonView key={`${a}/${b}`} ids={[a, b]} />
    </div>
  );
}
