import { useLiveQuery } from 'dexie-react-hooks';

interface Live<T> {
  data?: T;
  error?: unknown;
}

/** A live query that says its error rather than throwing it at the page. */
export function useLive<T>(query: () => Promise<T>, deps: unknown[]): Live<T> & { isSuccess: boolean; isError: boolean } {
  const result = useLiveQuery(
    async (): Promise<Live<T>> => {
      try {
        return { data: await query() };
      } catch (error) {
        return { error };
      }
    },
    deps,
  );
  return { ...result, isSuccess: result?.data !== undefined, isError: result?.error !== undefined };
}

