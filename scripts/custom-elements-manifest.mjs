// Build step: writes dist/custom-elements.json from the elements' JSDoc and Lit `static properties`; hand-written as @custom-elements-manifest/analyzer 0.11.0 writes no custom-element-definition exports for classes registered by the element table, makes `{ state: true }` properties attributes and says schema 1.0.0.
// Usage: node scripts/custom-elements-manifest.mjs [outfile]
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const componentsDir = join(root, 'src/components');
/** The base classes the elements extend, by name, each with its module. */
const BASE_FILES = {
  OnboardingElement: 'src/components/shared/onboarding-element.ts',
  AnchoredElement: 'src/components/targets/anchored-element.ts',
  FieldsElement: 'src/components/fields/fields-element.ts',
  HintBase: 'src/components/hint/hint-base.ts',
};

const text = (comment) =>
  (typeof comment === 'string' ? comment : (ts.getTextOfJSDocComment(comment) ?? '')).replace(/\s+/g, ' ').trim();

/** "name - description" (a lone "-" is the default slot). */
function nameAndDescription(comment) {
  const match = /^(\S*)\s*-\s*([\s\S]*)$/.exec(text(comment));
  return match
    ? { name: match[1] === '-' ? '' : match[1], description: match[2].trim() }
    : { name: text(comment), description: '' };
}

function docOf(node) {
  return (node.jsDoc ?? [])
    .map((doc) => text(doc.comment))
    .filter(Boolean)
    .join(' ');
}

/** The options object of each property in the class's Lit `static properties = { name: { … } }`, by name. */
function litProperties(node, source) {
  const declaration = node.members.find(
    (m) =>
      ts.isPropertyDeclaration(m) &&
      m.name.getText(source) === 'properties' &&
      (ts.getModifiers(m) ?? []).some((x) => x.kind === ts.SyntaxKind.StaticKeyword),
  );
  const list = declaration?.initializer;
  if (!list || !ts.isObjectLiteralExpression(list)) return {};
  return Object.fromEntries(
    list.properties.filter(ts.isPropertyAssignment).map((p) => [p.name.getText(source), p.initializer]),
  );
}

/** Public fields and accessors of a class, with the options of Lit's reactive properties turned into attributes. */
function readMembers(node, source) {
  const members = [];
  const attributes = [];
  const reactive = litProperties(node, source);
  for (const member of node.members) {
    const name = member.name && ts.isIdentifier(member.name) ? member.name.text : undefined;
    if (!name) continue;
    const modifiers = ts.getModifiers(member) ?? [];
    if (
      modifiers.some((m) =>
        [ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.StaticKeyword].includes(m.kind),
      )
    )
      continue;
    if (!ts.isPropertyDeclaration(member) && !ts.isGetAccessorDeclaration(member)) continue;
    if (ts.isGetAccessorDeclaration(member) && members.some((m) => m.name === name)) continue;
    const type =
      member.type?.getText(source) ??
      (member.initializer && ts.isStringLiteral(member.initializer)
        ? 'string'
        : member.initializer?.kind === ts.SyntaxKind.FalseKeyword ||
            member.initializer?.kind === ts.SyntaxKind.TrueKeyword
          ? 'boolean'
          : undefined);
    const entry = { kind: 'field', name, description: docOf(member), ...(type ? { type: { text: type } } : {}) };
    if (ts.isPropertyDeclaration(member) && member.initializer) entry.default = member.initializer.getText(source);
    if (ts.isGetAccessorDeclaration(member))
      entry.readonly = !node.members.some((m) => ts.isSetAccessorDeclaration(m) && m.name.getText(source) === name);
    const options = reactive[name];
    if (options) {
      const option = (key) =>
        ts.isObjectLiteralExpression(options) &&
        options.properties.find((p) => p.name?.getText(source) === key)?.initializer;
      const attribute = option('attribute');
      if (attribute?.kind !== ts.SyntaxKind.FalseKeyword) {
        const attributeName = attribute && ts.isStringLiteral(attribute) ? attribute.text : name.toLowerCase();
        entry.attribute = attributeName;
        if (option('reflect')?.kind === ts.SyntaxKind.TrueKeyword) entry.reflects = true;
        attributes.push({
          name: attributeName,
          fieldName: name,
          description: entry.description,
          ...(entry.type ? { type: entry.type } : {}),
          ...(entry.default ? { default: entry.default } : {}),
        });
      }
    }
    members.push(entry);
  }
  return { members, attributes };
}

function readFile(path) {
  const source = ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true);
  return { source, classes: source.statements.filter(ts.isClassDeclaration) };
}

/** The name of the class a class declaration extends, if any. */
function superclassName(node) {
  const clause = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword);
  const expression = clause?.types[0]?.expression;
  return expression && ts.isIdentifier(expression) ? expression.text : undefined;
}

/** The members and attributes a class inherits from the base classes above it, each marked with where it comes from. */
function inheritedFrom(name) {
  const found = { members: [], attributes: [] };
  for (let steps = 0; name in BASE_FILES && steps < Object.keys(BASE_FILES).length; steps++) {
    const file = readFile(BASE_FILES[name]);
    const node = file.classes.find((c) => c.name?.text === name);
    const own = readMembers(node, file.source);
    const from = { name, module: BASE_FILES[name] };
    const known = (list) => (entry) => !list.some((x) => x.name === entry.name);
    found.members.push(...own.members.filter(known(found.members)).map((m) => ({ ...m, inheritedFrom: from })));
    found.attributes.push(
      ...own.attributes.filter(known(found.attributes)).map((a) => ({ ...a, inheritedFrom: from })),
    );
    name = superclassName(node);
  }
  return found;
}

export function buildManifest() {
  const modules = [];
  // Each folder's `*.component.ts` files (the hint's folder has the tooltip's too).
  const paths = readdirSync(componentsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      readdirSync(join(componentsDir, entry.name))
        .filter((name) => name.endsWith('.component.ts'))
        .map((name) => `src/components/${entry.name}/${name}`),
    )
    .sort();
  for (const path of paths) {
    const file = readFile(path);
    const declarations = [];
    const exports = [];
    for (const node of file.classes) {
      const tags = ts.getJSDocTags(node);
      const tag = (name) => tags.filter((t) => t.tagName.text === name);
      const tagName = text(tag('tag')[0]?.comment);
      if (!tagName) continue;
      const own = readMembers(node, file.source);
      const superclass = superclassName(node);
      const inherited = inheritedFrom(superclass);
      const isOwn = (list) => (entry) => !list.some((x) => x.name === entry.name);
      const list = (name) => tag(name).map((t) => nameAndDescription(t.comment));
      const declaration = {
        kind: 'class',
        name: node.name.text,
        tagName,
        customElement: true,
        summary: text(tag('summary')[0]?.comment),
        slots: list('slot'),
        events: list('event').map((e) => ({ ...e, type: { text: 'CustomEvent' } })),
        cssParts: list('csspart'),
        cssProperties: list('cssproperty'),
        attributes: [...own.attributes, ...inherited.attributes.filter(isOwn(own.attributes))],
        members: [...own.members, ...inherited.members.filter(isOwn(own.members))],
        superclass:
          superclass in BASE_FILES
            ? { name: superclass, module: BASE_FILES[superclass] }
            : { name: superclass, package: 'lit' },
      };
      declarations.push(declaration);
      exports.push({ kind: 'js', name: declaration.name, declaration: { name: declaration.name, module: path } });
      exports.push({
        kind: 'custom-element-definition',
        name: tagName,
        declaration: { name: declaration.name, module: path },
      });
    }
    if (declarations.length) modules.push({ kind: 'javascript-module', path, declarations, exports });
  }
  return { schemaVersion: '2.1.0', readme: 'README.md', modules };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = resolve(root, process.argv[2] ?? 'dist/custom-elements.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(buildManifest(), null, 2) + '\n');
  console.log(`${relative(root, out)}: ${buildManifest().modules.length} elements`);
}
