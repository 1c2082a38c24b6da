// Bundles a test page's app (React, Vue, Svelte) as an app's own bundler would: one ESM file, minified, in production mode.
import { build, type BuildOptions } from 'esbuild';

export async function bundleApp(entry: string, options: BuildOptions = {}): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    logLevel: 'silent',
    ...options,
    define: { 'process.env.NODE_ENV': '"production"', ...options.define },
  });
  return result.outputFiles![0].text;
}
