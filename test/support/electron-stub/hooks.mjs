/** Module-resolution hook (node:module register()): the bare specifier `electron` resolves to the stand-in. */
const STAND_IN = new URL('./electron.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') return { url: STAND_IN, shortCircuit: true };
  return nextResolve(specifier, context);
}
