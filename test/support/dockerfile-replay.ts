// Replays a Dockerfile's stages without a Docker engine: each stage's COPY and RUN steps in a scratch root of its own.
//
// The rules, kept small by keeping the Dockerfile plain:
// - Only FROM … AS, WORKDIR, ENV, COPY (with --from=), RUN, USER, EXPOSE, VOLUME, HEALTHCHECK and CMD are known;
//   anything else (an ARG, a flag, a wildcard, a JSON-form COPY) fails the replay instead of being skipped.
// - The base image is not pulled: its place is taken by this machine's node and npm, and a system folder of the
//   image (/usr, /tmp, …) is this machine's.
// - A container path is one under a top-level folder that the Dockerfile itself names as a WORKDIR, a COPY
//   destination, a VOLUME or an absolute ENV value (/app, /data, …). In WORKDIR, COPY, ENV, RUN, HEALTHCHECK and
//   CMD, such paths are mapped into the stage's scratch root.
// - Every step runs as the test's own user, who owns every file the replay makes: USER is recorded, not switched, and
//   `chown` is a stand-in that only checks its paths exist.
// - `COPY . .` takes the build context (the repository) as `.dockerignore` filters it, with Docker's rules: a pattern
//   also takes what is under the folders it matches, `**` spans folders, and a later `!pattern` brings paths back.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, posix } from 'node:path';

export interface Instruction {
  keyword: string;
  /** The instruction's text after its keyword, with line continuations joined. */
  args: string;
  /** The line the instruction starts on, for messages. */
  line: number;
}

export interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

const KNOWN = new Set(['FROM', 'WORKDIR', 'ENV', 'COPY', 'RUN', 'USER', 'EXPOSE', 'VOLUME', 'HEALTHCHECK', 'CMD']);

/** The stages of a Dockerfile, each with its instructions; throws on anything the replay does not know. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let logical = lines[i].trim();
    if (logical === '' || logical.startsWith('#')) continue;
    // A trailing backslash continues the instruction; comment lines inside it are dropped, as Docker does.
    while (logical.endsWith('\\') && i + 1 < lines.length) {
      const next = lines[++i].trim();
      logical = `${logical.slice(0, -1).trimEnd()} ${next.startsWith('#') ? '' : next}`.trimEnd();
    }
    const [, word = '', args = ''] = /^(\S+)\s*(.*)$/s.exec(logical)!;
    const keyword = word.toUpperCase();
    const instruction = { keyword, args, line: start + 1 };
    if (!KNOWN.has(keyword)) throw replayError(instruction, `${keyword} is not an instruction the replay knows`);
    if (keyword === 'FROM') {
      const from = /^(\S+)\s+AS\s+([\w.-]+)$/i.exec(args);
      if (!from) throw replayError(instruction, 'a stage must be `FROM <image> AS <name>`');
      if (stages.some((stage) => stage.name === from[1]))
        throw replayError(instruction, 'a stage built on another stage is not replayed');
      stages.push({ name: from[2], image: from[1], instructions: [] });
    } else {
      if (stages.length === 0) throw replayError(instruction, 'an instruction before the first FROM');
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

function replayError(instruction: Instruction, message: string): Error {
  return new Error(`Dockerfile line ${instruction.line} (${instruction.keyword} ${instruction.args}): ${message}`);
}

/** `KEY=value …` (values may be quoted), or the older `KEY value`. */
export function parseEnv(args: string): Array<[string, string]> {
  if (!/^[A-Za-z_]\w*=/.test(args)) {
    const [, key = '', value = ''] = /^(\S+)\s+(.*)$/s.exec(args) ?? [];
    return [[key, value]];
  }
  const pairs: Array<[string, string]> = [];
  for (const match of args.matchAll(/([A-Za-z_]\w*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) {
    const raw = match[2];
    pairs.push([
      match[1],
      raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw.startsWith("'") ? raw.slice(1, -1) : raw,
    ]);
  }
  return pairs;
}

/** A command in exec form (a JSON array) or shell form (run by /bin/sh -c, as Docker does). */
export function parseCommand(args: string): string[] {
  return args.trim().startsWith('[') ? (JSON.parse(args) as string[]) : ['/bin/sh', '-c', args];
}

/** HEALTHCHECK's options and its command. */
export function parseHealthcheck(args: string): { options: Record<string, string>; command: string[] } {
  const options: Record<string, string> = {};
  let rest = args;
  for (let option = /^--([\w-]+)=(\S+)\s+/.exec(rest); option; option = /^--([\w-]+)=(\S+)\s+/.exec(rest)) {
    options[option[1]] = option[2]!;
    rest = rest.slice(option[0].length);
  }
  const cmd = /^CMD\s+(.*)$/s.exec(rest);
  if (!cmd) throw new Error(`HEALTHCHECK ${args}: expected CMD`);
  return { options, command: parseCommand(cmd[1]) };
}

/** The top-level folders the Dockerfile names as container paths (see the rules above). */
export function containerRoots(stages: Stage[]): string[] {
  const roots = new Set<string>();
  const add = (path: string) => {
    if (path.startsWith('/') && path.length > 1) roots.add(path.split('/')[1]);
  };
  for (const { instructions } of stages) {
    for (const { keyword, args } of instructions) {
      if (keyword === 'WORKDIR') add(args);
      if (keyword === 'COPY') add(args.split(/\s+/).at(-1)!);
      if (keyword === 'VOLUME') for (const path of volumePaths(args)) add(path);
      if (keyword === 'ENV') for (const [, value] of parseEnv(args)) add(value);
    }
  }
  return [...roots].sort();
}

/** Maps each container path in `text` into `root`: a path starts at a word boundary, after `=`, `:`, a quote or a bracket. */
export function mapPaths(text: string, roots: string[], root: string): string {
  if (roots.length === 0) return text;
  const names = roots.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pattern = new RegExp(`(^|[\\s=:'"\\[,])(/(?:${names}))(?=$|[/\\s'",\\]:;&|)])`, 'g');
  return text.replace(pattern, (_all, before: string, path: string) => `${before}${root}${path}`);
}

/** Docker's `.dockerignore`: whether a path relative to the context (posix separators) is left out of it. */
export interface DockerIgnore {
  ignores(path: string): boolean;
  /** Whether a `!pattern` may bring back a path under a folder left out, so such folders must still be walked. */
  hasExceptions: boolean;
}

export function dockerignore(text: string): DockerIgnore {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exception = line.startsWith('!');
      const pattern = posix.normalize((exception ? line.slice(1) : line).trim()).replace(/^\/+|\/+$/g, '');
      return { exception, regex: globRegex(pattern) };
    });
  return {
    ignores(path) {
      // A pattern matches a path or any folder above it; the last matching rule decides.
      const candidates = path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
      let ignored = false;
      for (const rule of rules)
        if (candidates.some((candidate) => rule.regex.test(candidate))) ignored = !rule.exception;
      return ignored;
    },
    hasExceptions: rules.some((rule) => rule.exception),
  };
}

function globRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*' && pattern[i + 1] === '*') {
      // `**/` matches no folder or any number of them; a final `**` matches everything below.
      source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const end = pattern.indexOf(']', i);
      source += end > i ? pattern.slice(i, end + 1).replace(/^\[!/, '[^') : '\\[';
      if (end > i) i = end;
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Copies the context's `from` (a file, or a folder's contents) to `to` as `.dockerignore` lets it, keeping symlinks. */
function copyFromContext(context: string, from: string, to: string, ignore: DockerIgnore): void {
  const relative = posix.relative(context.split('\\').join('/'), from.split('\\').join('/'));
  const left = relative !== '' && ignore.ignores(relative);
  const stat = lstatSync(from);
  if (stat.isDirectory()) {
    if (left && !ignore.hasExceptions) return;
    // A folder left out is still walked for the paths an exception brings back, but not made when none is.
    if (!left) mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) copyFromContext(context, join(from, name), join(to, name), ignore);
    return;
  }
  if (left) return;
  mkdirSync(dirname(to), { recursive: true });
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else {
    copyFileSync(from, to);
    chmodSync(to, stat.mode & 0o777);
  }
}

/** VOLUME's paths, in JSON or plain form. */
const volumePaths = (args: string): string[] =>
  args.trim().startsWith('[') ? (JSON.parse(args) as string[]) : args.trim().split(/\s+/);

export interface ReplayOptions {
  /** The build context: the folder holding the Dockerfile and .dockerignore. */
  context: string;
  /** A scratch folder; each stage gets `<scratch>/<stage>`. */
  scratch: string;
  /** Variables every step gets besides the stage's ENV (PATH, HOME, npm's cache…). */
  env: Record<string, string>;
  /** Longest time one RUN step may take. @default 600000 */
  stepTimeoutMs?: number;
}

export interface ReplayedStage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  exposed: string[];
  volumes: string[];
  healthcheck?: { options: Record<string, string>; command: string[] };
  cmd?: string[];
  /** How long each COPY and RUN took, in order, to see where a slow replay spends its time. */
  timings: Array<{ instruction: string; ms: number }>;
}

/** Replays every stage in order; a failing RUN throws with the stage, the line and the end of its output. */
export async function replayDockerfile(options: ReplayOptions): Promise<ReplayedStage[]> {
  const stages = parseDockerfile(readFileSync(join(options.context, 'Dockerfile'), 'utf8'));
  const roots = containerRoots(stages);
  const ignorePath = join(options.context, '.dockerignore');
  const ignore = dockerignore(existsSync(ignorePath) ? readFileSync(ignorePath, 'utf8') : '');
  // chown's stand-in: the test's user owns everything already, so only the paths are checked.
  const shims = join(options.scratch, '.replay-bin');
  mkdirSync(shims, { recursive: true });
  writeFileSync(
    join(shims, 'chown'),
    "#!/bin/sh\n# The replay runs as the test's user, who owns every file it made: check the paths, change nothing.\n" +
      'while [ "${1#-}" != "$1" ]; do shift; done\nshift\nfor path in "$@"; do [ -e "$path" ] || { echo "chown: cannot access \'$path\'" >&2; exit 1; }; done\n',
    { mode: 0o755 },
  );
  const done: ReplayedStage[] = [];
  for (const stage of stages) {
    const root = join(options.scratch, stage.name);
    mkdirSync(root, { recursive: true });
    const state: ReplayedStage = {
      name: stage.name,
      root,
      workdir: root,
      env: {},
      exposed: [],
      volumes: [],
      timings: [],
    };
    const map = (text: string) => mapPaths(text, roots, root);
    const inContainer = (path: string) => (path.startsWith('/') ? map(path) : join(state.workdir, path));
    for (const instruction of stage.instructions) {
      const { keyword, args } = instruction;
      const started = Date.now();
      if (keyword === 'WORKDIR') {
        state.workdir = inContainer(args);
        mkdirSync(state.workdir, { recursive: true });
      } else if (keyword === 'ENV') {
        for (const [key, value] of parseEnv(args)) {
          if (value.includes('$')) throw replayError(instruction, 'a variable in an ENV value is not replayed');
          state.env[key] = map(value);
        }
      } else if (keyword === 'COPY') {
        const words = args.split(/\s+/);
        const from = words[0].startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
        if (words.some((word) => word.startsWith('--')) || args.startsWith('['))
          throw replayError(instruction, 'only COPY [--from=<stage>] <source>… <destination> is replayed');
        const destination = words.pop()!;
        if (words.some((word) => /[*?[]/.test(word)))
          throw replayError(instruction, 'a wildcard source is not replayed');
        const source = from ? done.find((s) => s.name === from) : undefined;
        if (from && !source) throw replayError(instruction, `no stage named ${from} before this one`);
        const target = inContainer(destination);
        for (const word of words) {
          const path = source ? join(source.root, word) : join(options.context, word);
          const relative = posix.normalize(word) === '.' ? '' : posix.normalize(word).replace(/^\/+/, '');
          if (!existsSync(path) || (!source && relative !== '' && ignore.ignores(relative)))
            throw replayError(instruction, `${word} is not in the ${source ? `stage ${from}` : 'build context'}`);
          const intoFolder =
            destination.endsWith('/') || destination === '.' || words.length > 1 || lstatSync(path).isDirectory();
          const to = intoFolder && !lstatSync(path).isDirectory() ? join(target, posix.basename(word)) : target;
          if (source) cpSync(path, to, { recursive: true, verbatimSymlinks: true });
          else copyFromContext(options.context, path, to, ignore);
        }
      } else if (keyword === 'RUN') {
        if (args.startsWith('--')) throw replayError(instruction, 'RUN flags (--mount…) are not replayed');
        const [file, ...argv] = parseCommand(map(args));
        await runStep(
          file,
          argv,
          { cwd: state.workdir, env: { ...options.env, PATH: `${shims}:${options.env.PATH}`, ...state.env } },
          options.stepTimeoutMs ?? 600_000,
        ).catch((error: Error) => {
          throw new Error(
            `stage ${stage.name}, Dockerfile line ${instruction.line} (RUN ${args}) failed:\n${error.message}`,
          );
        });
      } else if (keyword === 'USER') state.user = args;
      else if (keyword === 'EXPOSE') state.exposed.push(...args.split(/\s+/));
      else if (keyword === 'VOLUME') {
        for (const path of volumePaths(args)) {
          state.volumes.push(path);
          mkdirSync(inContainer(path), { recursive: true });
        }
      } else if (keyword === 'HEALTHCHECK') {
        const check = parseHealthcheck(args);
        state.healthcheck = { options: check.options, command: check.command.map(map) };
      } else if (keyword === 'CMD') state.cmd = parseCommand(args).map(map);
      if (keyword === 'COPY' || keyword === 'RUN')
        state.timings.push({ instruction: `${keyword} ${args}`, ms: Date.now() - started });
    }
    done.push(state);
  }
  return done;
}

/** Runs one step; rejects with its exit status and the last lines of its output. */
function runStep(
  file: string,
  argv: string[],
  options: { cwd: string; env: Record<string, string> },
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, argv, { ...options, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve();
      const output = `${stdout}${stderr}`.trimEnd().split('\n').slice(-40).join('\n');
      reject(new Error(`${error.killed ? `killed after ${timeoutMs} ms` : `exit ${error.code}`}\n${output}`));
    });
  });
}

/** Starts a stage's CMD in its workdir with its ENV, `extraEnv` on top (as `docker run -e` would). */
export function startCommand(
  stage: ReplayedStage,
  baseEnv: Record<string, string>,
  extraEnv: Record<string, string>,
): ChildProcess {
  if (!stage.cmd) throw new Error(`stage ${stage.name} has no CMD`);
  const [file, ...argv] = stage.cmd;
  return spawn(file, argv, {
    cwd: stage.workdir,
    env: { ...baseEnv, ...stage.env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
