import { createContext, useContext } from 'react';

/**
 * Asks, where the page sits behind a token prompt, for another token for the active profile
 * (the one it has was refused); null where no prompt is around the page.
 */
export const AskForTokenContext = createContext<(() => void) | null>(null);

export function useAskForToken(): (() => void) | null {
  return useContext(AskForTokenContext);
}
