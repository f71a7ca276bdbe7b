/**
 * Test support: every slot filled at once with its feature's component (the console loads them
 * when first shown), for tests that render a feature's part with what the app puts in it.
 */
import type { ReactNode } from 'react';
import { render } from '@testing-library/react';
import { SlotsProvider, type Slots } from '../components/slots';
import { StateChart, StreamChart } from '../features/insight/components/run-chart';
import { RunOnBoth } from '../features/insight/components/run-on-both';
import { RunBody } from '../features/runs/components/run-body';
import { SaveTestCase } from '../features/suites/components/save-test-case';
import { AgentTools } from '../features/tools/components/agent-tools';
import { ToolAuthorization } from '../features/tools/components/tool-authorization';

export const filledSlots: Slots = { StreamChart, StateChart, ToolAuthorization, RunBody, SaveTestCase, AgentTools, RunOnBoth };

export function renderWithSlots(ui: ReactNode) {
  return render(<SlotsProvider slots={filledSlots}>{ui}</SlotsProvider>);
}
