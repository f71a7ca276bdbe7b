/**
 * What one feature shows of another, filled in by the app: features never import each other
 * (the lint rule), so a run's body shows its chart (insight) and a refused tool's authorization
 * (tools) through these slots, and the app decides which component fills each, and when its code
 * loads. Props are the slots' contract; each feature's component takes exactly these.
 */
import { createContext, useContext, type ComponentType, type ReactNode } from 'react';
import type { HistoryEntry } from '../engine/history-entry';
import type { RunRecord } from '../engine/run-record';
import type { RunSettings } from '../engine/run-settings';
import type { Transition } from '../engine/run-machine';
import type { TimelineEntry } from '../engine/stream-event';
import type { ApiError } from '../lib/api-client';
import type { ActiveConnection } from '../lib/connection';

export interface StreamChartProps {
  events: readonly TimelineEntry[];
  durationMs: number | undefined;
  /** The time axis' end; at least the run's own length. */
  domainMs?: number;
  label: string;
  onPick?(index: number): void;
}

export interface StateChartProps {
  transitions: readonly Transition[];
  startedAt: number;
  endAt: number;
  domainMs?: number;
  label: string;
}

export interface ToolAuthorizationProps {
  error: ApiError;
  /** Sends the refused run's request again, once. */
  onRunAgain?: () => void;
  runAgainBlockedWhy?: string;
  /** The profile the run was sent with: authorizing is for the token of the profile in use now. */
  sentWith?: { profileId?: string; profileLabel: string };
  /** Sends this tab to the consent page (a component test, which must stay on its page, watches it instead). */
  openConsent?: (href: string) => void;
}

export interface RunBodyProps {
  run: RunRecord;
  onRunAsDurable?(run: RunRecord): void;
  /** Sends the run's request once more (after its tools were authorized). */
  onRunAgain?(run: RunRecord): void;
  runAgainBlockedWhy?: string;
  level?: 2 | 3;
}

export interface AgentToolsProps {
  connection: ActiveConnection;
  agentId: string;
  settings: RunSettings;
  onSettings(patch: Partial<RunSettings>): void;
}

export interface RunOnBothProps {
  formId: string;
  connection: ActiveConnection;
  settings: RunSettings;
  agentId: string;
  cannotRunWhy?: string;
}

export interface Slots {
  /** A stream's events over time (insight). */
  StreamChart: ComponentType<StreamChartProps>;
  /** A durable run's states over time (insight). */
  StateChart: ComponentType<StateChartProps>;
  /** A run refused until a tool server is authorized (tools). */
  ToolAuthorization: ComponentType<ToolAuthorizationProps>;
  /** A run as the runs page shows it (runs). */
  RunBody: ComponentType<RunBodyProps>;
  /** Save as test case, for a run history kept (suites). */
  SaveTestCase: ComponentType<{ entry: HistoryEntry }>;
  /** The agent's tools, under the run form (tools). */
  AgentTools: ComponentType<AgentToolsProps>;
  /** Run on both, under the run form (insight). */
  RunOnBoth: ComponentType<RunOnBothProps>;
}

const nothing = () => null;

/** A feature shown alone (a component test of it) shows nothing in its slots: the app fills them. */
const EMPTY: Slots = { StreamChart: nothing, StateChart: nothing, ToolAuthorization: nothing, RunBody: nothing, SaveTestCase: nothing, AgentTools: nothing, RunOnBoth: nothing };

const SlotsContext = createContext<Slots>(EMPTY);

export function SlotsProvider({ slots, children }: { slots: Slots; children: ReactNode }) {
  return <SlotsContext.Provider value={slots}>{children}</SlotsContext.Provider>;
}

/** The components the app put in the slots. */
export function useSlots(): Slots {
  return useContext(SlotsContext);
}
