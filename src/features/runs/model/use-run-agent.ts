import { useMemo, useState } from 'react';
import type { JsonSchema } from '../../../contract/agents';
import { ApiError } from '../../../lib/api-client';
import { useAgentSchemas } from '../../../lib/agents/agent-schemas';
import { useAgent } from '../../../lib/agents/get-agent';
import type { AgentConnection } from '../../../lib/agents/agent-keys';
import type { Flavour } from '../../../engine/run-request';
import { fieldsOf, formRefusal, schemaOfManualFields, type ManualField } from './schema-form';

/** Fields typed by hand belong to the agent they were typed for. */
interface ManualState {
  agentId: string;
  fields: ManualField[];
}

/**
 * The agent a run is being built for: what the instance says of it, its input schema (or
 * fields typed by hand when the schema cannot be had), and the form fields built from it.
 */
export function useRunAgent(connection: AgentConnection, flavour: Flavour, agentId: string) {
  const [manualState, setManualState] = useState<ManualState | null>(null);
  const manual = manualState?.agentId === agentId ? manualState.fields : null;
  const agent = useAgent(connection, flavour, agentId);
  const schemas = useAgentSchemas(connection, flavour, agentId);
  const unknown = agent.error instanceof ApiError && agent.error.status === 404;
  // Memoized by their source: a new schema object on every render would rebuild the form's resolver.
  const schema: JsonSchema | undefined = useMemo(() => (manual ? schemaOfManualFields(manual) : schemas.data?.input_schema), [manual, schemas.data]);
  const refusal = useMemo(() => (schema && !manual ? formRefusal(schema) : undefined), [schema, manual]);
  const fields = useMemo(() => (schema && !refusal ? fieldsOf(schema) : []), [schema, refusal]);
  const schemaStatus = schemas.error instanceof ApiError ? schemas.error.status : undefined;
  return {
    agent,
    schemas,
    unknown,
    /** The schema, unless no form is built from it (then `refusal` says why). */
    schema: refusal ? undefined : schema,
    refusal,
    fields,
    manual,
    name: agent.data?.name ?? schemas.data?.name,
    takesMessages: agent.data ? agent.data.capabilities['ap.io.messages'] === true : fields.length === 0,
    /**
     * Fields by hand help when the schema endpoint is missing or broken, not when the token is
     * refused (401, 403): the run itself would be refused the same way.
     */
    canAddByHand: schemas.isError && schemaStatus !== 401 && schemaStatus !== 403,
    setManual: (fields: ManualField[]) => setManualState({ agentId, fields }),
  };
}

export type RunAgent = ReturnType<typeof useRunAgent>;
