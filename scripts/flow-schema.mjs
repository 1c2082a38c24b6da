// Build step: writes schema/flow.schema.json (JSON Schema, draft-07) from the flow file types in src/api/wire/flow-file*.ts.
// Usage: node scripts/flow-schema.mjs [outfile]. test/repo/flow-schema.test.ts fails when the committed file differs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The wire's index, which re-exports the flow file types from src/api/wire/. */
const WIRE = resolve(root, 'src/api/wire.ts');
export const SCHEMA_FILE = resolve(root, 'schema/flow.schema.json');
/**
 * Interfaces and type aliases that become named definitions (`$ref`); every other type is written in place. A generic
 * alias is named with its argument: `ValidationRule<number>` is `ValidationRule.number`.
 */
const NAMED = new Set(['FlowButton', 'ChoiceOption', 'FormField', 'ValidationRule']);
/** JSDoc tags copied into the schema, with how to read their text. */
const TAGS = {
  default: 'json',
  minLength: 'number',
  minimum: 'number',
  maximum: 'number',
  minItems: 'number',
  maxItems: 'number',
  pattern: 'string',
  format: 'string',
  keyPattern: 'keys',
};

export function buildFlowSchema() {
  const program = ts.createProgram([WIRE], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(WIRE)));
  const exportedSymbol = (name) => {
    const symbol = exported.find((s) => s.name === name);
    if (!symbol) throw new Error(`src/api/wire.ts exports no ${name}`);
    // A name re-exported one by one (`export { X } from …`) is an alias of its declaration.
    return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  };
  const declared = (name) => checker.getDeclaredTypeOfSymbol(exportedSymbol(name));
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
      // The keys of a mapping (`Record<string, X>`): a pattern every key matches.
      else if (kind === 'keys') out.propertyNames = { pattern: text };
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
    // In the order they are declared, so the fields every step has come first. Positions are compared within one
    // module only: an object whose fields are declared in several would come out in no meaningful order.
    const position = (symbol) => symbol.declarations?.[0]?.getStart() ?? 0;
    const modules = new Set(
      checker.getPropertiesOfType(type).map((symbol) => symbol.declarations?.[0]?.getSourceFile().fileName),
    );
    if (modules.size > 1)
      throw new Error(
        `flow schema: the fields of ${checker.typeToString(type)} are declared in several modules; declare them in one`,
      );
    for (const property of [...checker.getPropertiesOfType(type)].sort((a, b) => position(a) - position(b))) {
      properties[property.name] = {
        ...(replace[property.name] ?? schemaOf(typeOfProperty(property))),
        ...describe(property),
      };
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.name);
    }
    const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
    // Only an index signature opens an object to other keys: free-form custom data (`Record<string, unknown>`) takes
    // anything, a mapping of one kind (`Record<string, StepTranslation>`) takes that kind under any key.
    const free = !index || index.type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any);
    return {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: free ? Boolean(index) : schemaOf(index.type),
    };
  };

  /**
   * A property's type; for one declared with a named alias (`ValidationRule<number>`), the alias as written, since the
   * optional property's own type (`… | undefined`) no longer says which alias it came from.
   */
  const typeOfProperty = (property) => {
    const node = property.declarations?.[0]?.type;
    if (node && ts.isTypeReferenceNode(node) && NAMED.has(node.typeName.getText())) {
      const written = checker.getTypeFromTypeNode(node);
      if (written.aliasSymbol) return written;
    }
    return checker.getTypeOfSymbol(property);
  };

  /** A named alias: a `$ref` to its definition, written once. */
  const namedAlias = (type) => {
    const name = [type.aliasSymbol.name, ...(type.aliasTypeArguments ?? []).map((t) => checker.typeToString(t))].join(
      '.',
    );
    if (!definitions[name]) {
      definitions[name] = {}; // taken before the schema is built, in case the alias refers to itself
      definitions[name] = { ...describe(type.aliasSymbol), ...schemaOf(type, { alias: false }) };
    }
    return { $ref: `#/definitions/${name}` };
  };

  /** `string & {}`: any string, written so that a union with string literals keeps them (editors still offer them). */
  const isOpenString = (type) =>
    type.isIntersection() &&
    type.types.some((t) => t.flags & ts.TypeFlags.String) &&
    type.types.every(
      (t) =>
        t.flags & ts.TypeFlags.String || (t.flags & ts.TypeFlags.Object && checker.getPropertiesOfType(t).length === 0),
    );

  function schemaOf(type, { alias = true } = {}) {
    if (alias && type.aliasSymbol && NAMED.has(type.aliasSymbol.name)) return namedAlias(type);
    if (type.isUnion()) {
      const parts = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
      if (parts.length === 1) return schemaOf(parts[0]);
      if (parts.every((t) => t.isLiteral() || t.flags & ts.TypeFlags.BooleanLiteral)) {
        const values = parts.map((t) =>
          t.flags & ts.TypeFlags.BooleanLiteral ? checker.typeToString(t) === 'true' : t.value,
        );
        if (values.length === 2 && values.every((v) => typeof v === 'boolean')) return { type: 'boolean' };
        return { enum: values };
      }
      if (parts.every((t) => t.flags & (ts.TypeFlags.String | ts.TypeFlags.Number))) {
        return { type: parts.map((t) => (t.flags & ts.TypeFlags.String ? 'string' : 'number')) };
      }
      // Objects told apart by a `type` literal (a resource centre's blocks): the type names as one enum, then one
      // if/then per type, so a problem is reported against the shape its `type` names, not against every shape.
      const tagOf = (t) => {
        const tag = t.flags & ts.TypeFlags.Object ? t.getProperty('type') : undefined;
        const tagType = tag && checker.getTypeOfSymbol(tag);
        return tagType?.isStringLiteral() ? tagType.value : undefined;
      };
      const tags = parts.map(tagOf);
      if (tags.every((tag) => tag !== undefined) && new Set(tags).size === tags.length) {
        return {
          type: 'object',
          properties: { type: { enum: tags } },
          required: ['type'],
          allOf: parts.map((t, index) => ({
            if: { type: 'object', properties: { type: { const: tags[index] } }, required: ['type'] },
            then: { ...objectSchema(t), ...describe(t.symbol) },
          })),
        };
      }
      // Anything else is a list of alternatives: the literals as one (`'click' | { appears: string }`), `true | false` as
      // one boolean, and then each other type: a primitive (`string | ValidationRule`), an open string
      // (`FormFieldType | (string & {})`: the names editors offer, or any other), an object, or a list (`string | string[]`).
      const literals = parts.filter((t) => t.isStringLiteral() || t.isNumberLiteral());
      const booleans = parts.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
      const others = parts.filter((t) => !literals.includes(t) && !booleans.includes(t));
      const expressible = (t) =>
        t.flags & (ts.TypeFlags.String | ts.TypeFlags.Number | ts.TypeFlags.Object) || isOpenString(t);
      if (booleans.length === 1 || !others.every(expressible))
        throw new Error(`flow schema: cannot express the union ${checker.typeToString(type)}`);
      const values = literals.map((t) => t.value);
      return {
        anyOf: [
          ...(values.length === 0 ? [] : [values.length === 1 ? { const: values[0] } : { enum: values }]),
          ...(booleans.length ? [{ type: 'boolean' }] : []),
          ...others.map((t) => (isOpenString(t) ? { type: 'string', minLength: 1 } : schemaOf(t))),
        ],
      };
    }
    if (type.flags & ts.TypeFlags.String) return { type: 'string' };
    if (type.flags & ts.TypeFlags.Number) return { type: 'number' };
    if (type.flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (type.isStringLiteral()) return { const: type.value };
    if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return {};
    // Only the empty tuple (`steps?: []`: a flow type without steps) is written; its tags say the rest.
    if (checker.isTupleType(type) && checker.getTypeArguments(type).length === 0) return { type: 'array' };
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
  // Another name for a type (NPS_SURVEY for SURVEY) takes that type's `data`.
  const aliases = checker.getPropertiesOfType(checker.getTypeOfSymbol(exportedSymbol('FLOW_TYPE_ALIASES')));
  const namesOf = (type) => [
    type,
    ...aliases.filter((alias) => checker.getTypeOfSymbol(alias).value === type).map((alias) => alias.name),
  ];
  const conditions = checker.getPropertiesOfType(byType).map((property) => {
    const names = namesOf(property.name);
    return {
      if: {
        type: 'object',
        properties: { type: names.length === 1 ? { const: names[0] } : { enum: names } },
        required: ['type'],
      },
      then: { type: 'object', properties: { data: schemaOf(checker.getTypeOfSymbol(property)) } },
    };
  });
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
