// How big a translations file the import reads: checked on the file's size before any parser sees it, and handed to the parser for its depth and element count, so they outlive any one parser.

/**
 * The limits of a translations file. The demo's ten flows export as 88 units in 26 KB (300 bytes and 4 elements a
 * unit): the limits leave room for a folder of over a thousand flows, and keep a hostile file from exhausting the stack
 * or the memory (an import at both limits stays under 200 MB).
 */
export const TRANSLATION_FILE_LIMITS = {
  /** 4 MiB: 160 times the demo's file, 14,000 units as the export writes them (20,000 with short texts). */
  bytes: 4 * 1024 * 1024,
  /** XLIFF as the export writes it is 5 deep (xliff, file, unit, segment, target); a tool's inline markup adds a few. */
  depth: 32,
  /** 25,000 units of 4, more than 4 MiB holds as the export writes them; the tree fits a 64 MB heap with the rest. */
  elements: 100_000,
} as const;

/** Why a file of `bytes` bytes is not read, or undefined when it may be. */
export function fileSizeProblem(bytes: number): string | undefined {
  const { bytes: limit } = TRANSLATION_FILE_LIMITS;
  if (bytes <= limit) return undefined;
  return `${bytes.toLocaleString('en')} bytes, more than the ${limit / 1024 / 1024} MiB a translations file may have`;
}
