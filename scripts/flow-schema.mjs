// Build step: writes schema/flow.schema.json (JSON Schema, draft-07) from the flow file types in src/api/wire.ts.
// Usage: node scripts/flow-schema.mjs [outfile]. test/server/flow-schema.test.ts fails when the committed file differs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WIRE = resolve(root, 'src/api/wire.ts');
export const SCHEMA_FILE = resolve(root, 'schema/flow.schema.json');
/** Interfaces that become named definitions (`$ref`); every other object is written in place. */
const NAMED = new Set(['FlowButton', 'ChoiceOption', 'FormField']);
/** JSDoc tags copied into the schema, with how to read their text. */
const TAGS = { default: 'json', minLength: 'number', minimum: 'number', maximum: 'number', minItems: 'number', maxItems: 'number', pattern: 'string', format: 'string' };

export function buildFlowSchema() {
  const program = ts.createProgram([WIRE], { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, noEmit: true });
  const checker = program.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(WIRE)));
  const declared = (name) => {
    const symbol = exported.find((s) => s.name === name);
    if (!symbol) throw new Error(`src/api/wire.ts exports no ${name}`);
    return checker.getDeclaredTypeOfSymbol(symbol);
  };
  const definitions = {};

  const describe = (symbol) => {
    const out = {};
    const description = ts.displayPartsToString(symbol.getDocumentationComment(checker)).replace(/\s+/g, ' ').trim();
    if (description) out.description = description;
    for (const tag of symbol.getJsDocTags(checker)) {
      const kind = TAGS[tag.name];
      const text = ts.displayPartsToString(tag.text ?? []).trim();
      if (!kind || !text) continue;
      if (kind === 'number') out[tag.name] = Number(text);
      else if (kind === 'string') out[tag.name] = text;
      else {
        try {
          out[tag.name] = JSON.parse(text);
        } catch {
          out.description = `${out.description ?? ''} Default: ${text}.`.trim();
        }
      }
    }
    return out;
  };

  const objectSchema = (type, replace = {}) => {
    const properties = {};
    const required = [];
    // In the order they are declared in wire.ts, so the fields every step has come first.
    const position = (symbol) => symbol.declarations?.[0]?.getStart() ?? 0;
    for (const property of [...checker.getPropertiesOfType(type)].sort((a, b) => position(a) - position(b))) {
      const propertyType = checker.getTypeOfSymbol(property);
      properties[property.name] = { ...(replace[property.name] ?? schemaOf(propertyType)), ...describe(property) };
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.name);
    }
    const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
    return {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      // Only an index signature opens an object to other keys: that is where free-form custom data lives.
      additionalProperties: Boolean(index),
    };
  };

  function schemaOf(type) {
    if (type.isUnion()) {
      const parts = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
      if (parts.length === 1) return schemaOf(parts[0]);
      if (parts.every((t) => t.isLiteral() || t.flags & ts.TypeFlags.BooleanLiteral)) {
        const values = parts.map((t) => (t.flags & ts.TypeFlags.BooleanLiteral ? checker.typeToString(t) === 'true' : t.value));
        if (values.length === 2 && values.every((v) => typeof v === 'boolean')) return { type: 'boolean' };
        return { enum: values };
      }
      if (parts.every((t) => t.flags & (ts.TypeFlags.String | ts.TypeFlags.Number))) {
        return { type: parts.map((t) => (t.flags & ts.TypeFlags.String ? 'string' : 'number')) };
      }
      // Literals and objects mixed (`'click' | { appears: string }`): one alternative for the literals, one per object.
      const literals = parts.filter((t) => t.isStringLiteral() || t.isNumberLiteral());
      const others = parts.filter((t) => !literals.includes(t));
      if (others.every((t) => t.flags & ts.TypeFlags.Object && !checker.isArrayType(t))) {
        const values = literals.map((t) => t.value);
        return { anyOf: [...(values.length === 0 ? [] : [values.length === 1 ? { const: values[0] } : { enum: values }]), ...others.map(schemaOf)] };
      }
      // One value or a list of them (`string | string[]`): an alternative each.
      if (parts.every((t) => t.flags & ts.TypeFlags.String || checker.isArrayType(t))) return { anyOf: parts.map(schemaOf) };
      throw new Error(`flow schema: cannot express the union ${checker.typeToString(type)}`);
    }
    if (type.flags & ts.TypeFlags.String) return { type: 'string' };
    if (type.flags & ts.TypeFlags.Number) return { type: 'number' };
    if (type.flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (type.isStringLiteral()) return { const: type.value };
    if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return {};
    if (checker.isArrayType(type)) return { type: 'array', items: schemaOf(checker.getTypeArguments(type)[0]) };
    // Props joined from several interfaces (`FlowProps & TourOptions`): one object with the members of all.
    if (type.isIntersection()) return objectSchema(type);
    if (type.flags & ts.TypeFlags.Object) {
      const name = type.aliasSymbol?.name ?? type.symbol?.name;
      if (!NAMED.has(name)) return { ...objectSchema(type), ...describe(type.symbol) };
      definitions[name] ??= { ...describe(type.symbol), ...objectSchema(type) };
      return { $ref: `#/definitions/${name}` };
    }
    throw new Error(`flow schema: cannot express ${checker.typeToString(type)}`);
  }

  const file = declared('FlowFile');
  // `data` differs by type: the base only says it is an object, and one if/then per type gives its shape.
  const top = objectSchema(file, { data: { type: 'object' } });
  const byType = declared('FlowDataByType');
  const conditions = checker.getPropertiesOfType(byType).map((property) => ({
    if: { type: 'object', properties: { type: { const: property.name } }, required: ['type'] },
    then: { type: 'object', properties: { data: schemaOf(checker.getTypeOfSymbol(property)) } },
  }));
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://open-onboarding.dev/schema/flow.schema.json',
    title: 'Onboarding flow file',
    description: `${describe(file.symbol).description} Generated from src/api/wire.ts by scripts/flow-schema.mjs.`,
    ...top,
    allOf: conditions,
    definitions: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b))),
  };
}

export const schemaText = () => JSON.stringify(buildFlowSchema(), null, 2) + '\n';

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = resolve(root, process.argv[2] ?? SCHEMA_FILE);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, schemaText());
  console.log(`${relative(root, out)} written`);
}
