/**
 * The `durable` section of a scripted agent's behaviour (agents.json): what a durable run of
 * it does, step by step, including pauses for tool approvals. An agent without the section
 * runs its ordinary request-bound script when run durably.
 */

export interface ScriptFailure {
  code: string;
  message: string;
}

export interface ScriptStep {
  /** Work before the step's output; the step can be cancelled while it waits unless `cancellable` is false. */
  delayMs?: number;
  /** One output message; `{{n}}` is the repetition number. */
  text?: string;
  /** The step this many times (a long runner). */
  repeat?: number;
  /**
   * False for work that cannot be interrupted (a tool call in flight): a cancellation
   * during this step's wait answers 409, as the platform does for an active run without a
   * cancellation registration.
   */
  cancellable?: boolean;
  /** The run fails here with this error. */
  fail?: ScriptFailure;
}

export interface ScriptTool {
  tool_id?: string;
  display_name: string;
  description: string;
  arguments: Record<string, unknown>;
  /** The approval's own deadline, from the pause; none when absent. */
  expiresInMs?: number;
  /** What the run does after the decision, before the steps after the pause. */
  onApprove: ScriptStep[];
  onReject: ScriptStep[];
}

export interface TopStep extends ScriptStep {
  /** Pause for these approvals, all in one batch, after this step's text. */
  approval?: ScriptTool[];
}

export interface DurableScript {
  steps: TopStep[];
  /** Cooperative cancellation's clean-up time: the run shows CANCELLING this long before CANCELLED. */
  cancelDelayMs?: number;
}

const FAILURE = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'message'],
  properties: { code: { type: 'string', minLength: 1 }, message: { type: 'string', minLength: 1 } },
} as const;

const STEP_PROPERTIES = {
  delayMs: { type: 'integer', minimum: 0 },
  text: { type: 'string' },
  repeat: { type: 'integer', minimum: 1, maximum: 10_000 },
  cancellable: { type: 'boolean' },
  fail: FAILURE,
} as const;

const STEP = { type: 'object', additionalProperties: false, properties: STEP_PROPERTIES } as const;

/** JSON Schema of the section, checked when the agents file loads. */
export const DURABLE_SCRIPT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['steps'],
  properties: {
    cancelDelayMs: { type: 'integer', minimum: 0 },
    steps: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ...STEP_PROPERTIES,
          approval: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['display_name', 'description', 'arguments', 'onApprove', 'onReject'],
              properties: {
                tool_id: { type: 'string', minLength: 1 },
                display_name: { type: 'string', minLength: 1 },
                description: { type: 'string' },
                arguments: { type: 'object' },
                expiresInMs: { type: 'integer', minimum: 1 },
                onApprove: { type: 'array', items: STEP },
                onReject: { type: 'array', items: STEP },
              },
            },
          },
        },
      },
    },
  },
} as const;
