/**
 * Test-only: one call of every kind the console sends, written as the console writes them
 * (src/features/agent-runs/model/run-request.ts for the run bodies), on a group and agents
 * the reference service has.
 */
import type { Message } from '../../contract/agents';
import { legacyRunPath, platformRunsPath } from '../../contract/run-paths';
import { respondCall, type ApiCall } from './request';

export interface NamedCall {
  name: string;
  call: ApiCall;
}

const hello: Message[] = [{ role: 'USER', content: [{ type: 'text', text: "Hello, it's me" }] }];
/** A form agent's input carries every field, empty ones included (the input rule, README). */
const policyInput = { topic: 'parental leave', audience: '', region: 'emea', tone: 'friendly', maxPoints: 3, includeLinks: true };

/** The metadata calls in an order that works against a fresh group: create, read, set values, remove them, delete. */
export function metadataCalls(group: string): NamedCall[] {
  const docId = 'DOC-SNIPPET 1/a';
  return [
    { name: 'schema PUT', call: { op: 'putSchema', group, schema: { metadataKeys: [{ name: 'status', propertyType: 'PICKLIST' }, { name: 'tags', propertyType: 'MULTIPICKLIST', skipIndexing: true }] } } },
    { name: 'schema GET', call: { op: 'getSchema', group } },
    { name: 'values PUT', call: { op: 'putValues', group, docId, values: [{ name: 'status', value: "won't" }, { name: 'tags', value: ['emea', 'renewal'] }] } },
    { name: 'values DELETE', call: { op: 'deleteValues', group, docId } },
    { name: 'schema DELETE', call: { op: 'deleteSchema', group } },
  ];
}

export function runCalls(): NamedCall[] {
  const echo = 'echo-assistant';
  const form = 'hr-policy-form';
  return [
    { name: 'legacy stream', call: { op: 'run', agentId: echo, flavour: 'legacy', mode: 'stream', path: legacyRunPath('stream'), body: { agent_id: echo, messages: hello } } },
    { name: 'legacy wait', call: { op: 'run', agentId: form, flavour: 'legacy', mode: 'wait', path: legacyRunPath('wait'), body: { agent_id: form, input: policyInput } } },
    { name: 'platform stream', call: { op: 'run', agentId: echo, flavour: 'platform', mode: 'stream', path: platformRunsPath(echo), body: { messages: hello, stream: true } } },
    { name: 'platform wait', call: { op: 'run', agentId: form, flavour: 'platform', mode: 'wait', path: platformRunsPath(form), body: { input: policyInput, stream: false } } },
    { name: 'platform durable', call: { op: 'run', agentId: echo, flavour: 'platform', mode: 'durable', path: platformRunsPath(echo), body: { messages: hello, execution_mode: 'DURABLE' } } },
  ];
}

/** A run that asks the reference service for a fault: X-Sandbox-Fault goes with it in every language. */
export function faultCalls(): NamedCall[] {
  const echo = 'echo-assistant';
  const headers = { 'X-Sandbox-Fault': 'status=503; retry-after=9' };
  return [
    { name: 'platform wait with a fault', call: { op: 'run', agentId: echo, flavour: 'platform', mode: 'wait', path: platformRunsPath(echo), body: { messages: hello, stream: false }, headers } },
    { name: 'platform stream with a fault', call: { op: 'run', agentId: echo, flavour: 'platform', mode: 'stream', path: platformRunsPath(echo), body: { messages: hello, stream: true }, headers } },
    { name: 'legacy wait with a fault', call: { op: 'run', agentId: echo, flavour: 'legacy', mode: 'wait', path: legacyRunPath('wait'), body: { agent_id: echo, messages: hello }, headers } },
  ];
}

/**
 * The calls of the durable run page, on runs of the agents that show them (README, scripted
 * agents): decisions on a paused expense-filer (one approval) or trip-planner (two in one
 * batch), a cancellation of a long-runner, following a failing-job. The ids are made up here;
 * run.test.ts makes real runs and passes theirs.
 */
export function durableRunCalls(runId = 'run_0123abcd', pending: readonly string[] = ['int_flight', 'int_hotel']): NamedCall[] {
  return [
    { name: 'approve all', call: respondCall('expense-filer', runId, pending.slice(0, 1), 'all') },
    { name: 'approve one', call: respondCall('trip-planner', runId, pending, pending[0]!) },
    { name: 'reject all', call: respondCall('trip-planner', runId, pending, 'none') },
    { name: 'cancel', call: { op: 'cancel', agentId: 'long-runner', runId } },
    { name: 'follow', call: { op: 'follow', agentId: 'failing-job', runId } },
  ];
}

/** An agent's tools and the tool-server calls, on calendar-helper's servers; `returnUrl` must be on an origin the service allows. */
export function toolCalls(returnUrl = 'http://127.0.0.1:5173/runs/calendar-helper'): NamedCall[] {
  return [
    { name: 'agent tools', call: { op: 'agentTools', agentId: 'calendar-helper' } },
    { name: 'tool server status', call: { op: 'toolServerStatus', serverId: 'srv_gcal_01' } },
    { name: 'authorize tool server', call: { op: 'authorizeToolServer', serverId: 'srv_gcal_01', returnUrl } },
    { name: 'tool server tools', call: { op: 'toolServerTools', serverId: 'srv_gcal_01', toolNames: ['list_events', 'find_free_time'] } },
  ];
}

export function everyCall(group = 'sales'): NamedCall[] {
  return [...metadataCalls(group), ...runCalls(), ...faultCalls(), ...durableRunCalls(), ...toolCalls()];
}
