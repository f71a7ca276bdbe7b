/**
 * Following a durable run to its end, as each language writes it: read the run (GET) every
 * second, print each new state, stop at a terminal one. A pause for tool approvals is not an
 * end (API §4b: paused runs never expire): the loop says what to do and keeps reading, so an
 * approval sent from elsewhere (the console, another script) lets it finish.
 */
import { TERMINAL_STATES } from '../../contract/durable-runs';
import { platformCancellationsPath, platformResponsesPath } from '../../contract/run-paths';
import { jsString, shellQuote } from './code';
import type { DurableRunCall } from './request';

/** A second between reads: the comments say "every second". */
export const FOLLOW_EVERY_MS = 1000;

/** What the first request of a durable snippet does; its answer is a snapshot of the run either way. */
export const FIRST_STEP: Record<'run' | DurableRunCall['op'], string> = {
  run: 'Creates the run (201: its first snapshot); it goes on without this connection. Never POST it again to see progress: read it.',
  respond: 'Sends the decisions, one per pending interaction, in one request (200: the run, resumed).',
  cancel: 'Asks the run to stop (200: its snapshot; a running run passes through CANCELLING first).',
  follow: 'Reads the run.',
};
const PAUSED = 'REQUIRES_INPUT';

/** What a paused run waits for, and where to send it: printed once each time the run pauses. */
export function pausedHint(serverUrl: string, agentId: string): string[] {
  return [
    `Paused: it waits for a decision, APPROVE or REJECT, on each pending interaction below, all in one request:`,
    `  POST ${serverUrl}${platformResponsesPath(agentId)}  {"run_id": ..., "responses": [{"interaction_id": ..., "decision": ...}]}`,
    `(or cancel it: POST ${serverUrl}${platformCancellationsPath(agentId)}). Still reading; stopping this stops the reading, not the run.`,
  ];
}

/** The `"name": "value"` members of a JSON text, one per line, as POSIX tools can pick them out (no jq needed). */
function shellMembers(name: string, replacement: string): string {
  // Splitting at `,` and `{` puts each member at the start of a line, compact or pretty-printed
  // JSON alike; a quote inside a string is escaped (\"), so text in the output never passes for a member.
  return `printf '%s\\n' "$RUN" | tr ',{' '\\n\\n' | sed -n 's/^[[:space:]]*"${name}"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/${replacement}/p'`;
}

/** The run's own state: the first `state` member, which is the run's (pending interactions carry none). */
export const SHELL_STATE = `STATE=$(${shellMembers('state', '\\1')} | head -n 1)`;
export const SHELL_RUN_ID = `RUN_ID=$(${shellMembers('run_id', '\\1')} | head -n 1)`;

/**
 * The shell loop, given `$RUN` (the last answer, a snapshot or an error body) and `$RUN_ID`.
 * It never exits the shell (it may be pasted into one): it breaks out instead.
 */
export function shellFollowLoop(readAgain: string, hint: string[]): string {
  return [
    `# Read it every second until it ends (${TERMINAL_STATES.join(', ')}), printing each new state:`,
    'LAST=',
    'while :; do',
    `  ${SHELL_STATE}`,
    // No state: the answer was an error (or not a run); show it rather than read on blindly.
    `  if [ -z "$STATE" ]; then printf '%s\\n' "$RUN" >&2; break; fi`,
    '  if [ "$STATE" != "$LAST" ]; then',
    `    printf 'state: %s\\n' "$STATE"`,
    `    if [ "$STATE" = ${PAUSED} ]; then`,
    // printf, not echo: some shells' echo reads backslashes in the text as escapes.
    ...hint.map((line) => `      printf '%s\\n' ${shellQuote(line)}`),
    `      ${shellMembers('interaction_id', '  pending: \\1')}`,
    '    fi',
    '    LAST=$STATE',
    '  fi',
    `  case $STATE in ${TERMINAL_STATES.join('|')}) printf '%s\\n' "$RUN"; break ;; esac`,
    `  sleep ${FOLLOW_EVERY_MS / 1000}`,
    `  RUN=$(${readAgain.replace(/\n/g, '\n  ')}) || { printf '%s\\n' "$RUN" >&2; break; }`,
    'done',
  ].join('\n');
}

/**
 * The JavaScript (and TypeScript) loop, given `let run` (the first snapshot) and the statement(s)
 * that read `run` again.
 */
export function jsFollowLoop(readAgain: string[], hint: string[], typed: boolean): string {
  return [
    `// Read it every second until it ends (${TERMINAL_STATES.join(', ')}), printing each new state.`,
    `let last${typed ? ': string | undefined' : ''};`,
    `while (![${TERMINAL_STATES.map(jsString).join(', ')}].includes(run.state)) {`,
    '  if (run.state !== last) {',
    '    last = run.state;',
    '    console.log(`state: ${run.state}`);',
    `    if (run.state === ${jsString(PAUSED)}) {`,
    ...hint.map((line) => `      console.log(${jsString(line)});`),
    '      for (const i of run.pending_interactions) console.log(`  pending: ${i.interaction_id} (${i.display_name})`);',
    '    }',
    '  }',
    `  await new Promise((resolve) => setTimeout(resolve, ${FOLLOW_EVERY_MS}));`,
    ...readAgain.map((line) => `  ${line}`),
    '}',
    'console.log(`state: ${run.state}`);',
    'console.log(JSON.stringify(run, null, 2));',
  ].join('\n');
}
