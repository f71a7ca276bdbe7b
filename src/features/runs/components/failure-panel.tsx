import { InstanceLink } from '../../../components/instance-link';
import type { RunFailure } from '../../../engine/run-machine';

/** How a run failed, as it reported it: a run.failed event, a legacy error message, a wait answer's error, a durable run's error. */
export function FailurePanel({ failure }: { failure: RunFailure }) {
  return (
    <div className="error-panel" role="alert">
      <h3>Run failed: {failure.title}</h3>
      <p>{failure.detail}</p>
      {failure.code && failure.code !== failure.title && (
        <p>
          Code <code>{failure.code}</code>
        </p>
      )}
      {failure.requestId && (
        <p>
          Request id <code>{failure.requestId}</code>
        </p>
      )}
      {failure.documentationUrl && (
        <p>
          <InstanceLink href={failure.documentationUrl}>Documentation for this error</InstanceLink>
        </p>
      )}
    </div>
  );
}
