/**
 * What fills each feature's slots (components/slots): the composition of features, which only
 * the app sees. Each slot's code loads when it is first shown, inside a boundary of its own, so
 * that a chart appearing mid-run never blanks the page around it: the chart (insight) and Save as
 * test case (suites) stay out of the first pages' code; the run body, the tools and Run on both
 * come with the runs page, which imports them too.
 */
import { lazy, Suspense, type ComponentType } from 'react';
import type { Slots } from '../components/slots';

function slot<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  const Lazy = lazy(async () => ({ default: await load() }));
  return function Slot(props: P) {
    return (
      <Suspense fallback={null}>
        <Lazy {...props} />
      </Suspense>
    );
  };
}

const chart = () => import('../features/insight/components/run-chart');

export const consoleSlots: Slots = {
  StreamChart: slot(async () => (await chart()).StreamChart),
  StateChart: slot(async () => (await chart()).StateChart),
  ToolAuthorization: slot(async () => (await import('../features/tools/components/tool-authorization')).ToolAuthorization),
  RunBody: slot(async () => (await import('../features/runs/components/run-body')).RunBody),
  SaveTestCase: slot(async () => (await import('../features/suites/components/save-test-case')).SaveTestCase),
  AgentTools: slot(async () => (await import('../features/tools/components/agent-tools')).AgentTools),
  RunOnBoth: slot(async () => (await import('../features/insight/components/run-on-both')).RunOnBoth),
};
