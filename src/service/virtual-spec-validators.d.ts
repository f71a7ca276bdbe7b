/** What the `specLensValidators` plugin serves (vite-plugin.ts), as the service's tests import it. */
declare module 'virtual:spec-lens-validators' {
  import type { ValidateFunction } from 'ajv';

  export const validators: Readonly<Record<string, Readonly<Record<string, ValidateFunction>>>>;
}
