import { describe, expect, it } from 'vitest';
import { toolAsksApproval, toolSuggestionsOf, toolWrites } from './tool-servers.ts';

describe('toolSuggestionsOf', () => {
  it('reads both families’ spellings, in order', () => {
    expect(toolSuggestionsOf({ authentication_suggestions: [{ tool_name: 'Google Calendar', server_id: 'srv_gcal_01' }, { server_id: 'srv_x' }] })).toEqual([
      { toolName: 'Google Calendar', serverId: 'srv_gcal_01' },
      { serverId: 'srv_x' },
    ]);
    expect(toolSuggestionsOf({ authenticationSuggestions: [{ toolName: 'Outlook Mail', serverId: 'srv_outlook_02', toolType: 'MCP' }] })).toEqual([{ toolName: 'Outlook Mail', serverId: 'srv_outlook_02' }]);
  });

  it('skips whatever is not a suggestion with a server id, and never throws on what an instance sends', () => {
    expect(toolSuggestionsOf({ authentication_suggestions: [null, 'srv', { tool_name: 'No server' }, { server_id: '' }, { server_id: 7 }, { server_id: 'ok', tool_name: 3 }] })).toEqual([{ serverId: 'ok' }]);
    for (const body of [undefined, null, 'text', 42, [], { authentication_suggestions: 'srv' }]) expect(toolSuggestionsOf(body)).toEqual([]);
  });
});

describe('which tools write, and which may ask for approval', () => {
  it.each([
    [{ type: 'RETRIEVAL' }, false, false],
    [{}, false, false],
    [{ type: 'ACTION' }, true, true],
    [{ type: 'action', write_action_type: 'EXECUTION' }, true, true],
    [{ type: 'ACTION', write_action_type: 'REDIRECT' }, true, false],
    [{ write_action_type: 'EXECUTION' }, true, true],
    [{ type: 'RETRIEVAL', write_action_type: '' }, false, false],
  ])('%j writes: %s, may ask: %s', (tool, writes, asks) => {
    expect(toolWrites(tool)).toBe(writes);
    expect(toolAsksApproval(tool)).toBe(asks);
  });
});
