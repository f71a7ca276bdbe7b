/**
 * The spec lens's validators, compiled from the vendored spec when the console is built
 * (the `specLensValidators` Vite plugin, src/service/vite-plugin.ts).
 */
declare module 'virtual:spec-lens-validators' {
  import type { SpecValidators } from './lens';

  export const validators: SpecValidators;
}
