import { z } from 'zod';
import { mayReturnCredentials, operationEntries } from '../contract/index.js';
import { OPEN_ENUMS, UNLISTED_VALUES } from '../schemas/json-schema-meta.js';
import { CREDENTIAL_FIELDS } from '../schemas/resources.js';
import { webhookUrlSchema } from '../schemas/webhook-config.js';
import { CONTRACT, CONTRACT_ENTRIES } from './components.js';

/*
 * zod → JSON Schema 2020-12 with zod 4's own `z.toJSONSchema`, not a library such as
 * zod-openapi: zod already writes 2020-12 (the dialect of OpenAPI 3.1 schema objects) and turns
 * a registry into named definitions with $refs, which is all the document needs from a library;
 * the operations around the schemas are plain data (document.ts). zod-openapi 6 requires
 * Node >= 22.14 (engines), and its 5.x line would pin the build to a retired major.
 *
 * `io: 'input'`: every schema describes what the zod schema accepts (what the receiver, the
 * emulator and the typed client let through), not what parsing returns, so a JSON Schema
 * validator and zod give the same verdict on a payload (test/openapi checks it).
 *
 * What zod cannot write, handled by `override`:
 * - Open enums (`openEnum`, a plain string schema): `anyOf` of the documented `enum` and any
 *   string, so tools list the documented values and a value added later still validates.
 * - Unlisted discriminators (`unlistedValue`, a refinement): a non-empty string `not` in the
 *   documented values, which keeps the fallback branch of an open union from accepting a
 *   documented value whose own branch failed.
 * - The webhook URL fields (a refinement): the empty string or an absolute http(s) URL, each
 *   branch typed (a generator types an untyped branch as `unknown`).
 * Any other schema zod cannot represent (a transform, a custom type) throws at build time.
 *
 * Authentication point 7 (only the deprecated operations return the nine credential fields) is
 * written into the schemas: every object of a component a non-deprecated operation answers
 * with, at any depth, refuses them as property names (validators refuse a record carrying one;
 * generators, which do not read `propertyNames`, see them absent); a component that declares
 * one of them there fails the build.
 */

/** A JSON Schema (or OpenAPI schema object) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** Where components live in the OpenAPI document. */
export const COMPONENT_REF = '#/components/schemas/';
/** Where a standalone JSON Schema file keeps the components it uses. */
const DEFS_REF = '#/$defs/';

function override(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const json = ctx.jsonSchema as JsonSchema;
  const open = OPEN_ENUMS.get(ctx.zodSchema);
  if (open !== undefined) {
    const { type: _type, ...rest } = json;
    replace(json, {
      ...rest,
      anyOf: [{ type: 'string', enum: [...open.values] }, { type: 'string' }],
      description:
        'Open enum: a documented value, or any other string (a value the platform adds later is accepted).',
    });
    return;
  }
  const unlisted = UNLISTED_VALUES.get(ctx.zodSchema);
  if (unlisted !== undefined) {
    json.not = { enum: [...unlisted.documented] };
    json.description = `A value the documentation does not list (none of ${unlisted.documented.join(', ')}).`;
    return;
  }
  if (ctx.zodSchema === webhookUrlSchema) {
    replace(json, {
      anyOf: [
        { type: 'string', const: '' },
        { type: 'string', format: 'uri', pattern: '^https?://[^/?#\\s]+' },
      ],
      description:
        'The empty string (that webhook type is disabled, scope rule 4) or an absolute http(s) URL.',
    });
  }
}

function replace(target: JsonSchema, next: JsonSchema): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, next);
}

let cached: Record<string, JsonSchema> | undefined;

/**
 * Every named schema of the contract as an OpenAPI 3.1 component (JSON Schema 2020-12), keyed
 * by component name, nested named schemas as `$ref`s to `#/components/schemas/<name>`.
 * Computed once; callers get a deep copy.
 */
function contractComponents(): Record<string, JsonSchema> {
  cached ??= build();
  return structuredClone(cached);
}

function build(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(CONTRACT, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'throw',
    uri: (id) => `${COMPONENT_REF}${id}`,
    override,
  });
  const components: Record<string, JsonSchema> = {};
  for (const { id, description } of CONTRACT_ENTRIES) {
    // zod writes each registry entry as a document of its own; a component is a plain schema.
    const { $schema: _schema, $id: _id, ...schema } = schemas[id] as JsonSchema;
    components[id] = { description, ...schema };
  }
  for (const schema of Object.values(components)) walk(schema, absentAsPropertyNames);
  for (const name of credentialFreeComponents(components)) {
    refuseCredentials(components[name] as JsonSchema, name);
  }
  return sortKeys(components);
}

/**
 * A zod schema of the operations table as a schema of the document: a `$ref` to its component
 * when components.ts names it, an array of one, or else the schema written in place (the named
 * schemas inside it still `$ref`s), so a new row needs no registration to be documented.
 */
export function schemaRef(schema: z.ZodType): JsonSchema {
  if (schema instanceof z.ZodArray) return { type: 'array', items: schemaRef(schema.element as z.ZodType) };
  const meta = CONTRACT.get(schema);
  if (meta !== undefined) return { $ref: `${COMPONENT_REF}${meta.id}` };
  const {
    $schema: _schema,
    $defs: _defs,
    ...json
  } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'throw',
    metadata: CONTRACT,
    override,
  }) as JsonSchema;
  walk(json, (node) => {
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/$defs/')) {
      node.$ref = `${COMPONENT_REF}${node.$ref.slice('#/$defs/'.length)}`;
    }
  });
  walk(json, absentAsPropertyNames);
  return json;
}

/** The components the non-deprecated operations answer with, and every component they refer to. */
function credentialFreeComponents(components: Record<string, JsonSchema>): Set<string> {
  const names = new Set<string>();
  const pending = operationEntries()
    .filter(([, operation]) => !mayReturnCredentials(operation))
    .flatMap(([, operation]) => refsOf(schemaRef(operation.response.schema)));
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (names.has(name)) continue;
    names.add(name);
    pending.push(...refsOf(components[name]));
  }
  return names;
}

/** Adds `names` to the property names an object schema refuses. */
function refuseNames(node: JsonSchema, names: readonly string[]): void {
  const refused = { not: { enum: [...names] } };
  node.propertyNames = node.propertyNames === undefined ? refused : { allOf: [node.propertyNames, refused] };
}

/**
 * A property that must be absent (zod's `never().optional()`, written `not: {}`) becomes a
 * refused property name: generators type a `not: {}` property as `unknown`, not as absent.
 */
function absentAsPropertyNames(node: JsonSchema): void {
  const properties = node.properties as Record<string, JsonSchema> | undefined;
  if (properties === undefined) return;
  const absent = Object.keys(properties).filter((key) => JSON.stringify(properties[key]) === '{"not":{}}');
  if (absent.length === 0) return;
  for (const key of absent) delete properties[key];
  refuseNames(node, absent);
}

/**
 * Refuses every credential field as a property name of each object of `schema`, $refs aside
 * (document.ts applies it to a credential-free answer written in place).
 * `propertyNames`, not a `not: {}` property: a mock server generating an example from a
 * schema writes out every listed property, a refused one included, and breaks the document.
 */
export function refuseCredentials(schema: JsonSchema, name: string): void {
  walk(schema, (node) => {
    if (node.type !== 'object') return;
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    for (const field of CREDENTIAL_FIELDS) {
      if (field in properties) {
        throw new TypeError(
          `${name} is answered by a non-deprecated operation but declares the credential field ${field}`,
        );
      }
    }
    refuseNames(node, CREDENTIAL_FIELDS);
  });
}

/**
 * The components the `roots` refer to, transitively: the document's components. A resource that
 * only has a standalone file (e.g. the generic Page) stays out of the document, where it would be
 * an unused component.
 */
export function usedComponents(roots: readonly unknown[]): Record<string, JsonSchema> {
  const all = contractComponents();
  const used = new Set<string>();
  const pending = roots.flatMap(refsOf);
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (used.has(name)) continue;
    const component = all[name];
    if (component === undefined) throw new TypeError(`The document refers to a missing component ${name}`);
    used.add(name);
    pending.push(...refsOf(component));
  }
  return Object.fromEntries(Object.entries(all).filter(([name]) => used.has(name)));
}

/** The standalone JSON Schema files: file name (without `.json`) → component name. */
export function jsonSchemaFiles(): Readonly<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const { id, file } of CONTRACT_ENTRIES) if (file !== undefined) files[file] = id;
  return files;
}

/**
 * One component as a standalone JSON Schema 2020-12 document: the components it refers to,
 * transitively, copied into `$defs`, so the file needs nothing else.
 */
export function standaloneJsonSchema(id: string, components = contractComponents()): JsonSchema {
  const root = components[id];
  if (root === undefined) throw new TypeError(`No component named ${id}`);
  const defs: Record<string, JsonSchema> = {};
  const pending = [...refsOf(root)];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in defs || name === id) continue;
    const component = components[name];
    if (component === undefined) throw new TypeError(`${id} refers to a missing component ${name}`);
    defs[name] = component;
    pending.push(...refsOf(component));
  }
  const document: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: id,
    ...rewriteRefs(root, id),
  };
  if (Object.keys(defs).length > 0) {
    document.$defs = Object.fromEntries(
      Object.keys(defs)
        .sort()
        .map((name) => [name, rewriteRefs(defs[name] as JsonSchema, id)]),
    );
  }
  return document;
}

function refsOf(value: unknown): string[] {
  const found: string[] = [];
  walk(value, (node) => {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENT_REF)) found.push(ref.slice(COMPONENT_REF.length));
  });
  return found;
}

function rewriteRefs(schema: JsonSchema, rootId: string): JsonSchema {
  const copy = structuredClone(schema);
  walk(copy, (node) => {
    const ref = node.$ref;
    if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_REF)) return;
    const name = ref.slice(COMPONENT_REF.length);
    node.$ref = name === rootId ? '#' : `${DEFS_REF}${name}`;
  });
  return copy;
}

function walk(value: unknown, visit: (node: JsonSchema) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (typeof value === 'object' && value !== null) {
    visit(value as JsonSchema);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
