/** Code for a request in three languages: curl, JavaScript fetch, TypeScript with the official client. */
import { clientSnippet } from './client';
import { curlSnippet } from './curl';
import { fetchSnippet } from './fetch';
import type { ApiCall, Language, SnippetOptions } from './request';

export { LANGUAGES, MASKED_TOKEN, respondCall, TOKEN_VARIABLE, tokenPlaceholder, type ApiCall, type DurableRunCall, type Language, type SnippetOptions, type ToolCall } from './request';

export function snippet(language: Language, call: ApiCall, options: SnippetOptions): string {
  if (language === 'curl') return curlSnippet(call, options);
  if (language === 'javascript') return fetchSnippet(call, options);
  return clientSnippet(call, options);
}
