import { describe, expect, it } from 'vitest';
import {
  AGENTS_SCOPE,
  GLOBAL_SCOPE,
  groupScope,
  isKnownScopeShape,
  scopesAllowAgents,
  scopesCoverGroup,
  scopesThatCover,
} from './scopes.ts';

describe('groupScope', () => {
  it('spells the scope of a group in lower case, as documented', () => {
    expect(groupScope('Sales')).toBe('custommetadata:sales');
    expect(groupScope('hr')).toBe('custommetadata:hr');
  });
});

describe('scopesCoverGroup', () => {
  it.each([
    [[GLOBAL_SCOPE], 'sales'],
    [[GLOBAL_SCOPE], 'AnyGroup42'],
    [['custommetadata:sales'], 'sales'],
    [['custommetadata:Sales'], 'sales'],
    [['custommetadata:sales'], 'SALES'],
    [['custommetadata:SaLeS'], 'sAlEs'],
    [['CUSTOMMETADATA:GLOBAL_SCOPE'], 'hr'],
    [[' custommetadata:sales '], 'sales'],
    [['agents.run', 'custommetadata:hr', 'custommetadata:sales'], 'sales'],
  ])('%j covers group %s', (scopes, group) => {
    expect(scopesCoverGroup(scopes, group)).toBe(true);
  });

  it.each([
    [[], 'sales'],
    [['custommetadata:hr'], 'sales'],
    [['custommetadata:sale'], 'sales'],
    [['custommetadata:sales2'], 'sales'],
    [['custommetadata:sales'], 'sales2'],
    [['custommetadata:'], 'sales'],
    [['custommetadata:*'], 'sales'],
    [['sales'], 'sales'],
    [['custommetadata-sales'], 'sales'],
    [['custommetadata:global'], 'sales'],
    [['global_scope'], 'sales'],
    [[AGENTS_SCOPE], 'sales'],
    [['custommetadata:sales custommetadata:hr'], 'hr'],
  ])('%j does not cover group %s', (scopes, group) => {
    expect(scopesCoverGroup(scopes, group)).toBe(false);
  });
});

describe('scopesAllowAgents', () => {
  it.each([[[AGENTS_SCOPE]], [['AGENTS.RUN']], [[GLOBAL_SCOPE, ' agents.run']]])('%j allows the agent endpoints', (scopes) => {
    expect(scopesAllowAgents(scopes)).toBe(true);
  });

  it.each([[[]], [[GLOBAL_SCOPE]], [['custommetadata:sales']], [['agents']], [['agents.runs']], [['agents_run']], [['custommetadata:agents.run']]])(
    '%j does not',
    (scopes) => {
      expect(scopesAllowAgents(scopes)).toBe(false);
    },
  );
});

describe('scopesThatCover', () => {
  it('names the group scope first, then the global one', () => {
    expect(scopesThatCover('Sales')).toEqual(['custommetadata:sales', GLOBAL_SCOPE]);
  });

  it('names scopes that do cover the group', () => {
    for (const s of scopesThatCover('Engineering')) expect(scopesCoverGroup([s], 'engineering')).toBe(true);
  });
});

describe('isKnownScopeShape', () => {
  it.each([GLOBAL_SCOPE, AGENTS_SCOPE, 'custommetadata:sales', 'custommetadata:Sales2', `custommetadata:${'a'.repeat(50)}`, ' agents.run '])(
    '%s can be minted',
    (scope) => {
      expect(isKnownScopeShape(scope)).toBe(true);
    },
  );

  it.each([
    '',
    'admin',
    'agents',
    'agents.run.all',
    'custommetadata:',
    'custommetadata:sa les',
    'custommetadata:sales;hr',
    'custommetadata:sales/hr',
    'custommetadata:\u212Aey',
    'custommetadata:ｓａｌｅｓ',
    `custommetadata:${'a'.repeat(51)}`,
    'custommetadata:sales\nagents.run',
    'CustomMetadata:sales',
    // Outside the group-name grammar: a prototype key, underscores other than global_scope.
    'custommetadata:__proto__',
    'custommetadata:constructor_',
    'custommetadata:sales_eu',
    'custommetadata:_',
    'custommetadata:global_scope_',
  ])('%j cannot', (scope) => {
    expect(isKnownScopeShape(scope)).toBe(false);
  });
});

describe('case folding of scopes', () => {
  it('does not let a Kelvin sign in a scope cover a k in the group name', () => {
    expect(scopesCoverGroup(['custommetadata:\u212Aey'], 'key')).toBe(false);
    expect(scopesCoverGroup(['custommetadata:KEY'], 'key')).toBe(true);
  });
});
