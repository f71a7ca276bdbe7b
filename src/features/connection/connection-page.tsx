import { useServiceInfo } from './service-info';

const SAME_ORIGIN = { baseUrl: '' };

export function ConnectionPage() {
  const info = useServiceInfo(SAME_ORIGIN);
  return (
    <section aria-labelledby="connection-heading">
      <h1 id="connection-heading">Connection</h1>
      <p>
        Base URL: <code>{window.location.origin}</code> (the bundled reference service, same origin)
      </p>
      <div role="status" aria-live="polite">
        {info.isPending && <p>Checking the service…</p>}
        {info.isError && <p className="error">The reference service did not answer: {info.error.message}</p>}
        {info.isSuccess && (
          <p>
            Reference service reachable: {info.data.groups} metadata groups, {info.data.agents} scripted agents.
          </p>
        )}
      </div>
      <p className="muted">Token profiles and scope checks arrive with the connection panel.</p>
    </section>
  );
}
