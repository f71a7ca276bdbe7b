/**
 * The spec lens: checks an answer, or one streamed event's data, against the vendor's public
 * OpenAPI schema of its operation (src/contract/spec) and says in words what differs.
 * The spec files and Ajv are loaded on first use (`loadLens`), in chunks of their own.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describeErrors, undocumented, type Difference } from './differences';
import { isObject, toJsonSchema, type Json, type NamedSpec, type SpecDoc } from './openapi';
import { essenceOf, findMedia, findOperation, findResponse, isJsonType, type OperationMatch } from './operations';

export type { Difference } from './differences';

export type LensResult =
  | {
      kind: 'checked';
      /** What the answer was checked against, for the reader. */
      against: string;
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

export class SpecLens {
  private readonly validators = new Map<string, { ajv: Ajv; base: string; compiled: Map<string, ValidateFunction> }>();

  constructor(readonly specs: readonly NamedSpec[]) {
    for (const { name, doc } of specs) {
      // verbose: the sentences quote the value that differs. logger off: the vendor's
      // unknown formats are ignored, not warned about in the console.
      const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, logger: false });
      addFormats(ajv);
      const base = `https://spec.invalid/${name}.json`;
      const schemas = Object.fromEntries(Object.entries(doc.components?.schemas ?? {}).map(([k, v]) => [k, toJsonSchema(v, base)]));
      ajv.addSchema({ $id: base, components: { schemas } }, base);
      this.validators.set(name, { ajv, base, compiled: new Map() });
    }
  }

  private validate(spec: NamedSpec, key: string, schema: Json, value: unknown): Difference[] {
    const v = this.validators.get(spec.name)!;
    let fn = v.compiled.get(key);
    if (!fn) {
      const converted = toJsonSchema(schema, v.base);
      fn = v.ajv.compile(isObject(converted) ? converted : {});
      v.compiled.set(key, fn);
    }
    const errors = fn(value) ? [] : describeErrors(fn.errors ?? []);
    return [...errors, ...undocumented(spec.doc, schema, value)];
  }

  /** Checks a JSON answer against the documented response of its operation and status. */
  checkAnswer(answer: LensAnswer): LensResult {
    const lookup = findOperation(this.specs, answer.method, answer.url);
    if (!lookup.found) return none(lookup.reason);
    const op = lookup.found;
    const response = findResponse(op, answer.status);
    if (!response) return none(`${op.spec.name}.json lists no ${answer.status} answer for ${operationName(op)}.`);
    const media = findMedia(op, response, answer.contentType, 'json');
    if (!media) return none(`${op.spec.name}.json lists ${response.statusKey} for ${operationName(op)} but publishes no JSON body for it.`);
    const name = schemaName(media.schema);
    const against = `${operationName(op)} → ${response.statusKey} ${media.mediaType}${name ? `, schema ${name}` : ''} (${op.spec.name}.json)`;
    const notes: Difference[] = [];
    const essence = essenceOf(answer.contentType);
    if (media.mismatch) {
      const sentence = `The documentation says the answer is ${media.mismatch}; it came as ${essence}.`;
      if (!isJsonType(essence)) return { kind: 'checked', against, differences: [error('', `${sentence} It is not JSON.`)] };
      notes.push({ pointer: '', text: sentence, severity: 'note' });
    }
    if (answer.body.trim() === '') return { kind: 'checked', against, differences: [error('', 'The documentation promises a body; the answer is empty.')] };
    let value: unknown;
    try {
      value = JSON.parse(answer.body);
    } catch {
      return { kind: 'checked', against, differences: [error('', 'The documentation promises JSON; the answer is not valid JSON.')] };
    }
    return { kind: 'checked', against, differences: order([...this.validate(op.spec, media.pointer, media.schema, value), ...notes]) };
  }

  /** Checks the data of one event of a stream against the schema the documentation gives that event, if it gives one. */
  checkEvent(stream: LensStream, event: string, data: string): LensResult {
    const lookup = findOperation(this.specs, stream.method, stream.url);
    if (!lookup.found) return none(lookup.reason);
    const op = lookup.found;
    const response = findResponse(op, stream.status ?? 200);
    const media = response && findMedia(op, response, 'text/event-stream', 'event-stream');
    if (!media) return none(`${op.spec.name}.json does not document ${operationName(op)} as an event stream.`);
    const { mentioned, dataSchemas } = documentedEvents(media.schema);
    const named = dataSchemas.get(event);
    const schema = named ? op.spec.doc.components?.schemas?.[named] : undefined;
    if (!named || !schema) {
      if (named) return none(`No public schema for event “${event}”: ${op.spec.name}.json names its data ${named} but does not define that schema.`);
      if (mentioned.has(event)) return none(`No public schema for event “${event}”: ${op.spec.name}.json names the event for ${operationName(op)} but publishes no schema for its data.`);
      return none(`No public schema for event “${event}”: ${op.spec.name}.json does not mention this event for ${operationName(op)}.`);
    }
    const against = `event “${event}” of ${operationName(op)}, schema ${named} (${op.spec.name}.json)`;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return { kind: 'checked', against, differences: [error('', 'The documentation gives this event a JSON schema; its data is not valid JSON.')] };
    }
    return { kind: 'checked', against, differences: order(this.validate(op.spec, `#/components/schemas/${named}`, { $ref: `#/components/schemas/${named}` }, value)) };
  }
}

const order = (list: Difference[]) => [...list.filter((d) => d.severity === 'error'), ...list.filter((d) => d.severity === 'note')];

let loading: Promise<SpecLens> | undefined;

/** The lens over the vendored spec, loaded once, lazily: the files are ~60 kB of JSON the first page does not need. */
export function loadLens(): Promise<SpecLens> {
  loading ??= Promise.all([
    import('../../contract/spec/indexing.json'),
    import('../../contract/spec/client_rest.json'),
    import('../../contract/spec/platform.json'),
  ]).then(
    ([indexing, clientRest, platform]) =>
      new SpecLens([
        { name: 'indexing', doc: indexing.default as unknown as SpecDoc },
        { name: 'client_rest', doc: clientRest.default as unknown as SpecDoc },
        { name: 'platform', doc: platform.default as unknown as SpecDoc },
      ]),
    (err: unknown) => {
      // A chunk that failed to load (a deploy replaced it, the network blinked) may load next time.
      loading = undefined;
      throw err;
    },
  );
  return loading;
}
