// happy-dom setup: Lit's one-time dev-mode notice is marked as already shown, so tests print nothing.
(globalThis as { litIssuedWarnings?: Set<string> }).litIssuedWarnings ??= new Set(['dev-mode']);
