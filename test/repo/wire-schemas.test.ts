// One source for validation: every JSON Schema the service checks a request body or query with agrees with its wire type.
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance, type FastifySchema } from 'fastify';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAnalyticsRoutes } from '../../server/routes/analytics.js';
import { registerBatchRoutes } from '../../server/routes/batch.js';
import { registerCollectionRoutes } from '../../server/routes/collections.js';
import type { AppDeps } from '../../server/routes/deps.js';
import { registerFlowStateRoutes } from '../../server/routes/flow-states.js';
import { registerFlowRoutes } from '../../server/routes/flows.js';
import { registerGroupRoutes } from '../../server/routes/groups.js';
import { registerSessionRoutes } from '../../server/routes/sessions.js';
import { registerUserRoutes } from '../../server/routes/users.js';
import { DEFAULT_LIMITS } from '../../server/shared/limits.js';

const WIRE = fileURLToPath(new URL('../../src/api/wire.ts', import.meta.url));

/** One body or query schema of a route, and the wire type it checks. */
interface Check {
  route: string;
  part: 'body' | 'querystring';
  /** The wire type; with several, the request is any one of them (each field required only where all require it). */
  wire: string[];
  /** Only these fields of the wire type. */
  pick?: string[];
  /** Fields the service also takes for another, older spelling (alias → field); either may then be left out. */
  aliases?: Record<string, string>;
}

/** The query of every endpoint that answers flow states, as FlowStatesQuery spells it. */
const STATE_ANSWER_QUERY = { wire: ['FlowStatesQuery'], pick: ['content', 'targetedOut', 'locale'] };

const CHECKS: Check[] = [
  // Older clients name the user `foreignId`; the handler answers 400 when neither is sent.
  { route: 'POST /v1/public/users', part: 'body', wire: ['UserUpsertRequest'], aliases: { foreignId: 'userId' } },
  { route: 'POST /v1/public/users', part: 'querystring', ...STATE_ANSWER_QUERY },
  { route: 'POST /v1/public/sessions', part: 'body', wire: ['SessionRequest'] },
  { route: 'POST /v1/public/sessions', part: 'querystring', ...STATE_ANSWER_QUERY },
  { route: 'POST /v1/public/groups', part: 'body', wire: ['GroupUpsertRequest'] },
  { route: 'POST /v1/public/userGroups', part: 'body', wire: ['UserGroupRequest'] },
  { route: 'GET /v1/public/flowStates', part: 'querystring', wire: ['FlowStatesQuery'] },
  // A transition, or without `actionType` a read; the handler asks a write for `flowSlug`.
  { route: 'POST /v1/public/flowStates', part: 'body', wire: ['FlowStateWriteRequest', 'FlowStatesReadRequest'] },
  { route: 'POST /v1/public/flowStates', part: 'querystring', ...STATE_ANSWER_QUERY },
  { route: 'POST /v1/public/batch', part: 'body', wire: ['BatchRequest'] },
  { route: 'POST /v1/public/batch', part: 'querystring', ...STATE_ANSWER_QUERY },
  { route: 'GET /v1/users', part: 'querystring', wire: ['DeleteUserQuery'] },
  { route: 'DELETE /v1/users', part: 'querystring', wire: ['DeleteUserQuery'] },
  { route: 'GET /v1/users/:userId/explain', part: 'querystring', wire: ['ExplainQuery'] },
  { route: 'GET /v1/analytics/flows', part: 'querystring', wire: ['AnalyticsQuery'] },
  { route: 'GET /v1/analytics/flows/:slug', part: 'querystring', wire: ['AnalyticsQuery'] },
  { route: 'GET /v1/analytics/flows/:slug/responses', part: 'querystring', wire: ['AnalyticsResponsesQuery'] },
];

/** Wire request types that no schema checks, and why. */
const WITHOUT_SCHEMA: Record<string, string> = {
  FlowsQuery: 'GET /v1/public/flows reads `offset` and `limit` by hand (pageParam in server/routes/flows.ts)',
};

/** Route schemas with no wire type, and why. */
const WITHOUT_WIRE_TYPE: Record<string, string> = {
  'GET /v1/collections querystring': 'it takes no query field, and refuses any',
  'GET /v1/analytics/experiments querystring': 'it takes no query field, and refuses any',
  'GET /v1/analytics/experiments/:id querystring': 'it takes no query field, and refuses any',
  'GET /v1/analytics/experiments/:id/participants.csv querystring': 'it takes no query field, and refuses any',
};

interface JsonSchema {
  type?: string | string[];
  enum?: Array<string | number>;
  const?: string | number;
  anyOf?: JsonSchema[];
  allOf?: Array<{
    if?: { properties?: Record<string, JsonSchema> };
    then?: { properties?: Record<string, JsonSchema> };
  }>;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
}

const program = ts.createProgram([WIRE], {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  noEmit: true,
});
const checker = program.getTypeChecker();
const wireExports = new Map(
  checker
    .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(WIRE)!)!)
    .map((symbol) => [symbol.name, symbol]),
);

function wireType(name: string): ts.Type {
  const symbol = wireExports.get(name);
  if (!symbol) throw new Error(`src/api/wire.ts exports no ${name}`);
  return checker.getDeclaredTypeOfSymbol(
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
  );
}

/** A field of a wire type: whether it may be left out, and its type without `undefined`. */
interface Field {
  optional: boolean;
  type: ts.Type;
}

/** A property's type without the `undefined` of an optional one (`unknown` stays itself, not `{}`). */
function propertyType(property: ts.Symbol): ts.Type {
  const type = checker.getTypeOfSymbol(property);
  return type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) ? type : checker.getNonNullableType(type);
}

function fieldsOf(type: ts.Type): Map<string, Field> {
  return new Map(
    checker
      .getPropertiesOfType(type)
      .map((property) => [
        property.name,
        { optional: (property.flags & ts.SymbolFlags.Optional) !== 0, type: propertyType(property) },
      ]),
  );
}

/** The fields a check expects: of one wire type, or of any of several, narrowed to `pick`, widened by `aliases`. */
function expectedFields(check: Check): Map<string, Field> {
  const each = check.wire.map((name) => fieldsOf(wireType(name)));
  const fields = new Map<string, Field>();
  for (const one of each) {
    for (const [name, field] of one) {
      const optional = field.optional || each.some((other) => !other.has(name) || other.get(name)!.optional);
      fields.set(name, { type: fields.get(name)?.type ?? field.type, optional });
    }
  }
  for (const name of check.pick ?? [])
    if (!fields.has(name)) throw new Error(`${check.wire.join(' | ')} has no field ${name}`);
  if (check.pick) for (const name of fields.keys()) if (!check.pick.includes(name)) fields.delete(name);
  for (const [alias, name] of Object.entries(check.aliases ?? {})) {
    const field = fields.get(name)!;
    fields.set(name, { ...field, optional: true });
    fields.set(alias, { ...field, optional: true });
  }
  return fields;
}

/** What values a type or a schema allows, coarsely: primitive kinds, and literals (of an enum or a union of them). */
interface Kinds {
  kinds: Set<string>;
  literals: Set<string | number>;
}

function wireKinds(type: ts.Type, into: Kinds = { kinds: new Set(), literals: new Set() }): Kinds {
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) into.kinds.add('any');
  else if (type.flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) into.kinds.add('boolean');
  else if (type.isUnion()) for (const part of type.types) wireKinds(part, into);
  else if (type.isStringLiteral() || type.isNumberLiteral()) into.literals.add(type.value);
  else if (type.flags & ts.TypeFlags.String) into.kinds.add('string');
  else if (type.flags & ts.TypeFlags.Number) into.kinds.add('number');
  else if (checker.isArrayType(type)) into.kinds.add('array');
  else if (type.flags & ts.TypeFlags.Object) into.kinds.add('object');
  else into.kinds.add(checker.typeToString(type));
  return into;
}

function schemaKinds(schema: JsonSchema, into: Kinds = { kinds: new Set(), literals: new Set() }): Kinds {
  for (const part of schema.anyOf ?? []) schemaKinds(part, into);
  if (schema.enum) for (const value of schema.enum) into.literals.add(value);
  else if (schema.const !== undefined) into.literals.add(schema.const);
  else if (schema.type) for (const type of [schema.type].flat()) into.kinds.add(type === 'integer' ? 'number' : type);
  else if (!schema.anyOf) into.kinds.add('any');
  return into;
}

const sameSet = <T>(a: Set<T>, b: Set<T>) => a.size === b.size && [...a].every((value) => b.has(value));
const describeKinds = ({ kinds, literals }: Kinds) =>
  [...kinds, ...[...literals].map((value) => JSON.stringify(value))].sort().join(' | ');

/**
 * Compares one field's type with its schema, then what each holds: an object's fields, an array's items, a
 * mapping's values, and the variants of a union. `asText`: a query field, so a number arrives as text, which the
 * handler reads.
 */
function compareField(path: string, type: ts.Type, schema: JsonSchema, asText: boolean, out: string[]): void {
  const wire = wireKinds(type);
  if (asText) wire.kinds = new Set([...wire.kinds].map((kind) => (kind === 'number' ? 'string' : kind)));
  const given = schemaKinds(schema);
  if (!sameSet(wire.kinds, given.kinds) || !sameSet(wire.literals, given.literals)) {
    out.push(`${path}: ${describeKinds(wire)} in the wire type, ${describeKinds(given)} in the schema`);
    return;
  }
  if (schema.properties) compareObject(path, fieldsOf(type), schema, { closed: !hasStringIndex(type) }, out);
  if (schema.items && checker.isArrayType(type))
    compareField(`${path}[]`, checker.getTypeArguments(type as ts.TypeReference)[0], schema.items, false, out);
  if (typeof schema.additionalProperties === 'object') {
    const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
    if (index) compareField(`${path}{}`, index.type, schema.additionalProperties, false, out);
    else out.push(`${path}: the schema takes any key, the wire type has no index signature`);
  }
  if (schema.allOf) compareVariants(path, type, schema.allOf, out);
}

/**
 * How an object is compared. `closed`: the wire type names every field it takes (no index signature), so the schema
 * refuses others. `asText`: a query's fields. `mayTakeOthers`: the query of a /v1/public/ path, which may also carry
 * the `publicKey` query field (read by the key check, before validation).
 */
interface ObjectRules {
  closed: boolean;
  asText?: boolean;
  mayTakeOthers?: boolean;
}

const hasStringIndex = (type: ts.Type) =>
  checker.getIndexInfosOfType(type).some((info) => (info.keyType.flags & ts.TypeFlags.String) !== 0);

/** The fields of an object: the same names, the same required ones, each field alike, and no others unless the type takes them. */
function compareObject(
  path: string,
  fields: Map<string, Field>,
  schema: JsonSchema,
  rules: ObjectRules,
  out: string[],
): void {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const refusesOthers = schema.additionalProperties === false;
  if (rules.closed && !refusesOthers && !rules.mayTakeOthers)
    out.push(`${path}: the schema takes fields the wire type does not name`);
  if (!rules.closed && refusesOthers) out.push(`${path}: the schema refuses fields the wire type takes`);
  for (const [name, field] of fields) {
    const property = properties[name];
    if (!property) {
      out.push(`${path}.${name}: in the wire type, not in the schema`);
      continue;
    }
    if (field.optional === required.has(name)) {
      out.push(
        `${path}.${name}: ${field.optional ? 'optional' : 'required'} in the wire type, ${field.optional ? 'required' : 'optional'} in the schema`,
      );
    }
    compareField(`${path}.${name}`, field.type, property, rules.asText ?? false, out);
  }
  for (const name of Object.keys(properties))
    if (!fields.has(name)) out.push(`${path}.${name}: in the schema, not in the wire type`);
  for (const name of required)
    if (!(name in properties)) out.push(`${path}.${name}: required by the schema, which does not declare it`);
}

/** A union told apart by one field (`path` of a batch write): one `if`/`then` of the schema per member, each alike. */
function compareVariants(path: string, type: ts.Type, variants: NonNullable<JsonSchema['allOf']>, out: string[]): void {
  const members = type.isUnion() ? type.types : [type];
  if (members.length !== variants.length)
    out.push(`${path}: ${members.length} variants in the wire type, ${variants.length} in the schema`);
  for (const variant of variants) {
    const [key, condition] = Object.entries(variant.if?.properties ?? {})[0] ?? [];
    if (key === undefined || condition?.const === undefined) {
      out.push(`${path}: a variant of the schema is not told apart by one field's value`);
      continue;
    }
    const label = `${path}(${key}=${condition.const})`;
    const member = members.find((candidate) => {
      const discriminant = candidate.getProperty(key);
      return discriminant !== undefined && wireKinds(propertyType(discriminant)).literals.has(condition.const!);
    });
    if (!member) {
      out.push(`${label}: a variant of the schema, not of the wire type`);
      continue;
    }
    for (const [name, schema] of Object.entries(variant.then?.properties ?? {})) {
      const property = member.getProperty(name);
      if (property) compareField(`${label}.${name}`, propertyType(property), schema, false, out);
      else out.push(`${label}.${name}: in the schema, not in the wire type`);
    }
  }
}

/** The differences between a route's schema and its wire type, one line each; none when they agree. */
function differences(check: Check, schema: JsonSchema): string[] {
  const out: string[] = [];
  if (schema.type !== 'object') out.push(`${check.part}: the schema is not an object's`);
  const query = check.part === 'querystring';
  const rules = {
    closed: !check.wire.some((name) => hasStringIndex(wireType(name))),
    asText: query,
    mayTakeOthers: query && check.route.includes(' /v1/public/'),
  };
  compareObject(check.part, expectedFields(check), schema, rules, out);
  return out;
}

describe('the service validates requests by the wire types', () => {
  const schemas = new Map<string, FastifySchema>();
  let app: FastifyInstance;

  beforeAll(() => {
    app = Fastify();
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat())
        if (method !== 'HEAD') schemas.set(`${method} ${route.url}`, route.schema ?? {});
    });
    // Registering reads only the limits; the handlers, which need the rest, never run here.
    const deps = { limits: DEFAULT_LIMITS } as AppDeps;
    for (const register of [
      registerUserRoutes,
      registerGroupRoutes,
      registerFlowStateRoutes,
      registerFlowRoutes,
      registerSessionRoutes,
      registerBatchRoutes,
      registerAnalyticsRoutes,
      registerCollectionRoutes,
    ]) {
      register(app, deps);
    }
  });

  afterAll(() => app.close());

  for (const check of CHECKS) {
    const part = check.part === 'body' ? 'body' : 'query';
    it(`${check.route} checks its ${part} by the fields of ${check.wire.join(' or ')}`, () => {
      const schema = schemas.get(check.route)?.[check.part] as JsonSchema | undefined;
      expect(schema, `${check.route} has a ${part} schema`).toBeDefined();
      expect(differences(check, schema!)).toEqual([]);
    });
  }

  it('checks every request and query type of the wire', () => {
    const checked = new Set(CHECKS.flatMap((check) => check.wire));
    const requestTypes = [...wireExports.keys()].filter((name) => /(Request|Query)$/.test(name));
    expect(requestTypes.filter((name) => !checked.has(name) && !(name in WITHOUT_SCHEMA))).toEqual([]);
    expect(Object.keys(WITHOUT_SCHEMA).filter((name) => !requestTypes.includes(name))).toEqual([]);
  });

  it('checks every body and query schema of those routes', () => {
    const declared = [...schemas].flatMap(([route, schema]) =>
      (['body', 'querystring'] as const).filter((part) => schema[part]).map((part) => `${route} ${part}`),
    );
    const known = new Set([
      ...CHECKS.map((check) => `${check.route} ${check.part}`),
      ...Object.keys(WITHOUT_WIRE_TYPE),
    ]);
    expect(declared.filter((name) => !known.has(name))).toEqual([]);
  });
});
