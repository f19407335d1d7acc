// After `tsc`: writes the contract artifacts from the compiled generator (src/openapi), so they are
// generated from the operations table and the zod schemas at every build, never edited by hand.
//
//   dist/openapi.json                 package export messaging-webhooks/openapi.json
//   dist/schemas/json/<name>.json     package export messaging-webhooks/schemas/json/<name>.json
//
// test/openapi/artifacts.test.ts fails when these differ from what the table and schemas generate now.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createOpenApiDocument, jsonSchemaFiles, standaloneJsonSchema } from '../dist/openapi/index.js';

const dist = join(import.meta.dirname, '..', 'dist');
const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

writeFileSync(join(dist, 'openapi.json'), json(createOpenApiDocument()));
const dir = join(dist, 'schemas', 'json');
mkdirSync(dir, { recursive: true });
const files = Object.entries(jsonSchemaFiles());
for (const [file, id] of files) writeFileSync(join(dir, `${file}.json`), json(standaloneJsonSchema(id)));
console.log(
  `build-openapi: ${relative(process.cwd(), join(dist, 'openapi.json'))} and ${files.length} JSON Schemas in ${relative(process.cwd(), dir)}`,
);
