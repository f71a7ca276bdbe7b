import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useConnection, useConnections } from '../lib/connection';
import { NARROW } from '../lib/use-media-query';
import { usePageEscape } from '../lib/use-page-escape';
import { Conversation } from '../features/conversations/components/conversation';
import { HistoryPanel } from '../features/history/components/history-panel';
import { OpenRunById } from '../features/runs/components/open-run-by-id';
import { RequestSide } from '../features/runs/components/request-side';
import { ResponsePanel } from '../features/runs/components/response-panel';
import type { HistoryEntry } from '../engine/history-entry';
import { loadedRunOf, loadIntoForm, type LoadedRun } from '../features/runs/model/run-draft';
import { recordOfEntry, type RunRecord } from '../engine/run-record';
import { pairTargetOf, secondRequest, type PairTarget } from '../engine/run-pair';
import { faultFieldsOf, faultHeaderOf } from '../engine/fault-fields';
import { faultOfRequest, partsOf, runRequest, withSandboxFault, type RunParts, type RunRequest } from '../engine/run-request';
import { useRunSettings } from '../features/runs/model/run-settings';
import { timeoutMsOf, waitTimeoutMsOf } from '../engine/run-settings';
import { useRunStore, useRuns } from '../hooks/run-store';
import { newThreadId, threadPath } from '../engine/thread';
import { useRunAgent } from '../features/runs/model/use-run-agent';
import { useLastRunOf, useThreadEntries } from '../hooks/use-history';
import { useAgentTools } from '../lib/agents/agent-schemas';
import { ConsentReturnNotice, useConsentReturn } from '../features/tools/components/consent-return';
import { approvalOutlook } from '../features/tools/model/tool-auth';

const RUN_LABEL = { stream: 'Run and stream', wait: 'Run and wait', durable: 'Start durable run' } as const;

/**
 * /runs and /runs/:agentId: the request on one side, the response on the other (Run and
 * Stop, what the last run answered, whatever its kind), history below it. The agent comes
 * from the URL; the run shown comes from the run store, and says itself what it was sent as.
 */
export function RunsPage() {
  const { agentId = '', threadId: routeThreadId } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const connection = useConnection();
  const connections = useConnections();
  const store = useRunStore();
  const { runs, opened, active } = useRuns();
  const { settingsOf, chosen, update } = useRunSettings();
  // An agent whose tools may ask for approval starts in Durable mode, the one that can wait for
  // a decision, unless its mode was chosen here before (the page then offers Durable instead).
  const tools = useAgentTools(connection, agentId);
  const saved = settingsOf(agentId);
  const settings =
    !chosen(agentId) && saved.flavour === 'platform' && approvalOutlook(tools.data?.tools).kind === 'may' ? { ...saved, mode: 'durable' as const } : saved;
  const consentReturn = useConsentReturn();
  const agent = useRunAgent(connection, settings.flavour, agentId);
  const formId = useId();
  const statusRef = useRef<HTMLSpanElement>(null);
  // Where the page is now (undefined once it is left): an address a run moves to later is taken only if the user stayed.
  const here = useRef<string | undefined>(location.key);
  useEffect(() => {
    here.current = location.key;
    return () => {
      here.current = undefined;
    };
  }, [location.key]);
  // The run in flight if there is one (of a pair, A may outlive B, which was sent last), else
  // this agent's last one: another agent's answer is not shown under this one's name.
  // A conversation is reopened by its own address, not by the agent's: only a lone run is shown here after a reload.
  // Only the profile in use's: another token's answer is not shown as this one's last run.
  const lastRun = useLastRunOf(agentId, connection.profileId);
  const lastKept = lastRun?.request.thread ? undefined : lastRun;
  const held = runs.find((r) => (!agentId || r.request.agentId === agentId) && r.target.profileId === connection.profileId);
  // After a reload (or once the console let go of it) the agent's last run is read back from history.
  const latest = active ?? (held && (!lastKept || held.startedAt >= lastKept.startedAt) ? held : lastKept && recordOfEntry(lastKept));
  // A run loaded from history names itself in the navigation's state: the form is built anew for it.
  const loaded = (location.state as { loaded?: LoadedRun } | null)?.loaded;

  // The conversation shown: the one the address names, else the last run's (a messages agent's run is a conversation's turn).
  // A run just started in another conversation shows it at once; the address follows once history holds the turn.
  const [moving, setMoving] = useState<{ from: string; threadId: string }>();
  const movingTo = moving?.from === location.key ? moving.threadId : undefined;
  const threadId = movingTo ?? routeThreadId ?? latest?.request.thread?.id;
  // Its branch shown, by the branch's leaf turn (undefined: the newest turn's branch); another conversation opens at its newest.
  const [branch, setBranch] = useState<{ threadId: string; leafId: string | undefined }>();
  const leafId = branch && branch.threadId === threadId ? branch.leafId : undefined;
  // The run the head tells. In a conversation, the leaf turn's of the branch shown, else its newest
  // turn's (sent from this page, or opened from history to follow it); otherwise the last run.
  // A conversation opened by its address (a reload, back from a consent page) holds no run in
  // this page: its head tells that turn as history has it, as a lone run's does.
  const turns = useThreadEntries(threadId ?? '').entries;
  const keptTurn = leafId !== undefined ? turns.find((t) => t.id === leafId) : turns.at(-1);
  const headRun =
    (!threadId
      ? latest
      : leafId !== undefined
        ? store.forEntry(leafId)
        : [...runs, ...opened].find((r) => r.request.thread?.id === threadId)) ?? (threadId && keptTurn ? recordOfEntry(keptTurn) : undefined);
  const fault = faultHeaderOf(settings.fault);
  const build = (parts: RunParts): RunRequest =>
    withSandboxFault(runRequest(settings.flavour, settings.mode, { id: agentId, name: agent.name }, parts, timeoutMsOf(settings)), fault.value, connection.mode);
  const start = (request: RunRequest): boolean => {
    const record = store.start(connection, request);
    if (!record) return false;
    // A conversation's address follows its newest turn, so a reload or a shared link reopens it:
    // once history holds the turn (a durable one with its run id), so the address works the moment it shows.
    const thread = request.thread;
    if (thread && thread.id !== routeThreadId) {
      const from = location.key;
      setMoving({ from, threadId: thread.id });
      void store.kept(record.id).then(() => {
        if (here.current === from) navigate(threadPath({ id: thread.id, agentId: request.agentId }));
      });
    }
    // The status is where the run's progress is told; on one column (where Run and Stop stay at the bottom) the answer is brought into view.
    // A reply is brought into view at its own turn, not at the conversation's first.
    requestAnimationFrame(() => {
      statusRef.current?.focus({ preventScroll: true });
      if (!window.matchMedia(NARROW).matches) return;
      const turn = thread?.parentId ? document.querySelector('#run-output .turns > li:last-child') : null;
      (turn ?? document.getElementById('run-output'))?.scrollIntoView({ block: 'start' });
    });
    return true;
  };
  // "Run on both": one POST to each target, then both side by side on the comparison's own page.
  const runPair = (parts: RunParts, target: PairTarget) => {
    const first = build(parts);
    const other = target.kind === 'profile' ? connections.connectionOf(target.profileId) : connection;
    if (!other) return;
    // The second run keeps the fault only if it too goes to the bundled service.
    const second = withSandboxFault(secondRequest(first, target, waitTimeoutMsOf(settings)), faultOfRequest(first), other.mode);
    const pair = store.startPair({ connection, request: first }, { connection: other, request: second });
    if (!pair) return;
    // The comparison's page loads while history takes both runs, not after (on a first visit it is not loaded yet).
    void import('../features/insight/routes/compare-page').catch(() => undefined);
    // The comparison's address works from the moment it shows: both runs are in history first.
    const from = location.key;
    void Promise.all(pair.map((r) => store.kept(r.id))).then(() => {
      if (here.current === from) navigate(`/compare/${encodeURIComponent(pair[0].id)}/${encodeURIComponent(pair[1].id)}`);
    });
  };
  const loadRun = (entry: HistoryEntry) => {
    const { agentId: id, flavour, mode, timeoutMs } = entry.request;
    // The run's fault comes back with it (none, if it had none): Run again sends what the run sent.
    update(id, { flavour, mode, fault: faultFieldsOf(faultOfRequest(entry.request)), ...(timeoutMs !== undefined && { timeoutSec: String(timeoutMs / 1000) }) });
    loadIntoForm(entry);
    navigate(`/runs/${encodeURIComponent(id)}`, { state: { loaded: loadedRunOf(entry) } });
  };
  // After its tools were authorized: the refused run's own request once more, one POST.
  const runAgain = (run: RunRecord) => void start(run.request);
  const runAgainBlockedWhy = active
    ? `A run of ${active.request.agentName ?? active.request.agentId} is in flight; stop it to run again.`
    : connection.problem
      ? `Profile ${connection.profileLabel} cannot send now: ${connection.problem}`
      : !connection.token
        ? `Profile ${connection.profileLabel} has no token: give one with agents.run in the connection panel.`
        : undefined;
  const runAsDurable = (run: RunRecord) => {
    const { agentId: id, agentName, thread } = run.request;
    update(id, { flavour: 'platform', mode: 'durable' });
    // A refused turn of a conversation is asked again at the same point.
    start({ ...runRequest('platform', 'durable', { id, name: agentName }, partsOf(run.request)), ...(thread && { thread }) });
  };

  const onRequestKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    (document.getElementById(formId) as HTMLFormElement | null)?.requestSubmit();
  };
  // Escape stops the run from anywhere on the page, the connection panel and the navigation
  // included; what uses Escape itself first (the agent list, an edited question) keeps it.
  usePageEscape(() => {
    for (const r of store.inFlight()) store.stop(r.id);
  });

  const formReady = agentId !== '' && agent.schema !== undefined && !agent.unknown;
  const cannotRunWhy = !agentId
    ? 'Choose an agent to run.'
    : active
      ? `A run of ${active.request.agentName ?? active.request.agentId} is in flight; stop it to start another.`
      : !formReady
        ? // Without a token the agent's schema is refused (401): say what to do, not that the form is not ready.
          !connection.token
          ? `Profile ${connection.profileLabel} has no token: give one with agents.run in the connection panel.`
          : 'The input form is not ready.'
        : fault.problem && connection.mode === 'same-origin'
          ? `Inject a fault: ${fault.problem}`
          : undefined;

  return (
    <div className="runs-workspace">
      <section className="request-side" aria-labelledby="runs-heading" onKeyDown={onRequestKeyDown}>
        <RequestSide
          connection={connection}
          agentId={agentId}
          agent={agent}
          settings={settings}
          // The settings shown, default mode included, are what a change keeps.
          onSettings={(patch) => update(agentId, { ...settings, ...patch })}
          formId={formId}
          formKey={loaded ? location.key : 'saved'}
          latest={latest}
          loaded={loaded?.agentName !== undefined ? loaded : undefined}
          onSelectAgent={(id) => navigate(`/runs/${encodeURIComponent(id)}`)}
          // A messages agent's run from the form starts a conversation.
          onRun={(parts, submitter) => {
            // A fault the service would refuse is not sent (Ctrl+Enter submits the form whatever the Run button says).
            if (fault.problem && connection.mode === 'same-origin') return;
            const target = pairTargetOf(submitter);
            if (target) runPair(parts, target);
            else start(agent.takesMessages ? { ...build(parts), thread: { id: newThreadId() } } : build(parts));
          }}
          build={build}
          cannotRunWhy={cannotRunWhy}
        />
      </section>
      <section className="response-side" aria-label="Response">
        {consentReturn.result && (
          <ConsentReturnNotice
            result={consentReturn.result}
            onDismiss={consentReturn.dismiss}
            settled={!agent.agent.isLoading && !agent.schemas.isLoading && !tools.isLoading}
          />
        )}
        <ResponsePanel
          run={headRun}
          // A run in flight on a branch not shown can still be stopped from here.
          stoppable={active !== undefined}
          idleText={threadId ? 'Conversation from history' : undefined}
          body={
            threadId && (
              <Conversation
                key={threadId}
                threadId={threadId}
                leafId={leafId}
                onLeaf={(leaf) => setBranch({ threadId, leafId: leaf })}
                connection={connection}
                start={start}
                onRunAsDurable={active ? undefined : runAsDurable}
              />
            )
          }
          formId={formId}
          runLabel={RUN_LABEL[settings.mode]}
          canRun={cannotRunWhy === undefined}
          cannotRunWhy={cannotRunWhy}
          onStop={() => store.inFlight().forEach((r) => store.stop(r.id))}
          onRunAsDurable={active ? undefined : runAsDurable}
          onRunAgain={runAgain}
          runAgainBlockedWhy={runAgainBlockedWhy}
          statusRef={statusRef}
        />
        <OpenRunById agentId={agentId} />
        <HistoryPanel connection={connection} onLoad={loadRun} onImported={(thread) => navigate(threadPath(thread))} />
      </section>
    </div>
  );
}
