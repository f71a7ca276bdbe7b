/**
 * The spec lens: checks an answer, or one streamed event's data, against the vendor's public
 * OpenAPI schema of its operation (src/contract/spec) and says in words what differs.
 * The spec files and their validators are loaded on first use (`loadLens`), in chunks of
 * their own. The validators are Ajv's, compiled when the console is built
 * (src/service/spec-validators.ts): the page's policy forbids compiling code in the page.
 */
import type { ErrorObject } from 'ajv';
import { depthOver } from '../depth';
import { CLIENT_MODEL, describeErrors, MAX_NOTES, PUBLIC_SPEC, undocumented, type Difference } from './differences';
import { clientModelsNamedSpec, clientOf, isClientModels, toolServerModelsNamedSpec } from '../../contract/client-models';
import { fileOf, isObject, LENS_SPECS, type Json, type JsonObject, type NamedSpec, type SpecDoc } from '../../contract/openapi';
import { essenceOf, findMedia, findOperation, findOperations, findResponse, isJsonType, type OperationMatch, type ResponseMatch } from './operations';

export type { Difference } from './differences';

export type LensResult =
  | {
      kind: 'checked';
      /** What the answer was checked against, for the reader. */
      against: string;
      /** The vendor's public spec, or (for what it does not describe yet) the official client's models. */
      source: 'public-spec' | 'client-models';
      /** Errors and notes, errors first. */
      differences: Difference[];
    }
  | { kind: 'no-schema'; reason: string };

/** An answer as the console received it. */
export interface LensAnswer {
  method: string;
  url: string;
  status: number;
  /** The Content-Type header ('' when none). */
  contentType: string;
  /** The body as received. */
  body: string;
}

/** The request a stream answered, and the status it answered with. */
export interface LensStream {
  method: string;
  url: string;
  status?: number;
}

const none = (reason: string): LensResult => ({ kind: 'no-schema', reason });
const error = (pointer: string, text: string): Difference => ({ pointer, text, severity: 'error' });
const schemaName = (schema: Json) => (isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref.split('/').at(-1) : undefined);
const operationName = (m: OperationMatch) => `${m.method} ${m.spec.doc['x-base-path']}${m.template}`;

/** What the documentation says about the events of one stream: the names it mentions, and which name a data schema. */
export function documentedEvents(mediaSchema: Json): { mentioned: Set<string>; dataSchemas: Map<string, string> } {
  const mentioned = new Set<string>();
  const dataSchemas = new Map<string, string>();
  if (!isObject(mediaSchema)) return { mentioned, dataSchemas };
  const description = typeof mediaSchema.description === 'string' ? mediaSchema.description : '';
  const example = typeof mediaSchema.example === 'string' ? mediaSchema.example : '';
  for (const m of example.matchAll(/^event: *(\S+)/gm)) mentioned.add(m[1]!);
  for (const m of description.matchAll(/`([\w.-]+)` events?\b/g)) mentioned.add(m[1]!);
  // The spec's prose is the only place that ties an event to a schema ("a `run.failed` event
  // whose `data` is an `AgentRunFailedEventData` payload"); the schema is used only if the
  // file defines it.
  for (const m of description.matchAll(/`([\w.-]+)` events? whose `data` is an? `(\w+)`/g)) dataSchemas.set(m[1]!, m[2]!);
  return { mentioned, dataSchemas };
}

/** A compiled validator: true when the value fits, else false with Ajv's errors (verbose). */
export interface SpecValidate {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** Spec name → the key of a schema (validationTargets in contract/openapi.ts) → its validator. */
export type SpecValidators = Readonly<Record<string, Readonly<Record<string, SpecValidate>>>>;

/** Deepest answer the lens checks: its validators recurse with the answer. */
export const MAX_ANSWER_DEPTH = 256;

export class SpecLens {
  constructor(
    readonly specs: readonly NamedSpec[],
    private readonly validators: SpecValidators,
  ) {}

  private validate(spec: NamedSpec, key: string, schema: Json, value: unknown): Difference[] {
    const fn = this.validators[spec.name]?.[key];
    // Every schema of the vendored spec is compiled at build time; a miss is a build that did not.
    if (!fn) return [error('', `The console was built without a validator for ${fileOf(spec)} ${key}; it cannot check this answer.`)];
    // The validators recurse with the answer (and describeErrors lists every error): an answer
    // nested past MAX_ANSWER_DEPTH is said to be too deep rather than overflowing the stack.
    if (depthOver(value, MAX_ANSWER_DEPTH)) return [error('', `The answer nests deeper than ${MAX_ANSWER_DEPTH} levels: the lens does not check it.`)];
    const source = isClientModels(spec.name) ? CLIENT_MODEL : PUBLIC_SPEC;
    const errors = fn(value) ? [] : describeErrors((fn.errors ?? []).slice(0, MAX_NOTES), source);
    return [...errors, ...undocumented(spec.doc, schema, value, '', source)];
  }

  /**
   * Checks a JSON answer against the documented response of its operation and status: in the
   * public spec, else (a durable run's answers, which the cut does not describe yet) in the
   * official client's models.
   */
  checkAnswer(answer: LensAnswer): LensResult {
    const lookup = findOperations(this.specs, answer.method, answer.url);
    const first = lookup.found[0];
    if (!first) return none(lookup.reason);
    let described: { op: OperationMatch; response: ResponseMatch } | undefined;
    for (const op of lookup.found) {
      const response = findResponse(op, answer.status);
      if (response) {
        described = { op, response };
        break;
      }
    }
    if (!described) return none(`${fileOf(first.spec)} lists no ${answer.status} answer for ${operationName(first)}.`);
    const { op, response } = described;
    const media = findMedia(op, response, answer.contentType, 'json');
    if (!media) return none(`${fileOf(op.spec)} lists ${response.statusKey} for ${operationName(op)} but publishes no JSON body for it.`);
    const name = schemaName(media.schema);
    const byClient = isClientModels(op.spec.name);
    const source = byClient ? 'client-models' : 'public-spec';
    const against = byClient
      ? `${operationName(op)} → ${response.statusKey} ${media.mediaType}, model ${name ?? 'of the answer'} of the official client ${clientOf(op.spec.doc)} (${fileOf(op.spec)}; the public spec has no schema for it)`
      : `${operationName(op)} → ${response.statusKey} ${media.mediaType}${name ? `, schema ${name}` : ''} (${fileOf(op.spec)})`;
    const notes: Difference[] = [];
    const essence = essenceOf(answer.contentType);
    if (media.mismatch) {
      const sentence = `The documentation says the answer is ${media.mismatch}; it came as ${essence}.`;
      if (!isJsonType(essence)) return { kind: 'checked', against, source, differences: [error('', `${sentence} It is not JSON.`)] };
      notes.push({ pointer: '', text: sentence, severity: 'note' });
    }
    if (answer.body.trim() === '') return { kind: 'checked', against, source, differences: [error('', 'The documentation promises a body; the answer is empty.')] };
    let value: unknown;
    try {
      value = JSON.parse(answer.body);
    } catch {
      return { kind: 'checked', against, source, differences: [error('', 'The documentation promises JSON; the answer is not valid JSON.')] };
    }
    return { kind: 'checked', against, source, differences: order([...this.validate(op.spec, media.pointer, media.schema, value), ...notes]) };
  }

  /** Checks the data of one event of a stream against the schema the documentation gives that event, if it gives one. */
  checkEvent(stream: LensStream, event: string, data: string): LensResult {
    const lookup = findOperation(this.specs, stream.method, stream.url);
    if (!lookup.found) return none(lookup.reason);
    const op = lookup.found;
    const response = findResponse(op, stream.status ?? 200);
    const media = response && findMedia(op, response, 'text/event-stream', 'event-stream');
    if (!media) return none(`${fileOf(op.spec)} does not document ${operationName(op)} as an event stream.`);
    const { mentioned, dataSchemas } = documentedEvents(media.schema);
    const named = dataSchemas.get(event);
    const schema = named ? op.spec.doc.components?.schemas?.[named] : undefined;
    if (!named || !schema) {
      if (named) return none(`No public schema for event “${event}”: ${fileOf(op.spec)} names its data ${named} but does not define that schema.`);
      if (mentioned.has(event)) return none(`No public schema for event “${event}”: ${fileOf(op.spec)} names the event for ${operationName(op)} but publishes no schema for its data.`);
      return none(`No public schema for event “${event}”: ${fileOf(op.spec)} does not mention this event for ${operationName(op)}.`);
    }
    const against = `event “${event}” of ${operationName(op)}, schema ${named} (${fileOf(op.spec)})`;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return { kind: 'checked', against, source: 'public-spec', differences: [error('', 'The documentation gives this event a JSON schema; its data is not valid JSON.')] };
    }
    return { kind: 'checked', against, source: 'public-spec', differences: order(this.validate(op.spec, `#/components/schemas/${named}`, { $ref: `#/components/schemas/${named}` }, value)) };
  }
}

const order = (list: Difference[]) => [...list.filter((d) => d.severity === 'error'), ...list.filter((d) => d.severity === 'note')];

let loading: Promise<SpecLens> | undefined;

/** The lens over the vendored spec, loaded once, lazily: the files and their validators are chunks the first page does not need. */
export function loadLens(): Promise<SpecLens> {
  loading ??= Promise.all([
    import('../../contract/spec/indexing.json'),
    import('../../contract/spec/client_rest.json'),
    import('../../contract/spec/platform.json'),
    import('../../contract/spec/client-models/durable-runs.schema.json'),
    import('../../contract/spec/client-models/tool-servers.schema.json'),
    import('virtual:spec-lens-validators'),
  ]).then(
    ([indexing, clientRest, platform, clientModels, toolModels, { validators }]) => {
      const docs: Record<(typeof LENS_SPECS)[number], unknown> = { indexing: indexing.default, client_rest: clientRest.default, platform: platform.default };
      return new SpecLens(
        [
          ...LENS_SPECS.map((name) => ({ name, doc: docs[name] as SpecDoc })),
          clientModelsNamedSpec(clientModels.default as unknown as JsonObject),
          toolServerModelsNamedSpec(toolModels.default as unknown as JsonObject),
        ],
        validators,
      );
    },
    (err: unknown) => {
      // A chunk that failed to load (a deploy replaced it, the network blinked) may load next time.
      loading = undefined;
      throw err;
    },
  );
  return loading;
}
