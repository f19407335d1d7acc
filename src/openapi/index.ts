/**
 * The contract as artifacts: the OpenAPI 3.1 document of the platform interface and a JSON
 * Schema 2020-12 per webhook payload type and resource, generated from the zod schemas of
 * src/schemas. The build writes them to `dist/openapi.json` and `dist/schemas/json/<name>.json`
 * (package exports `messaging-webhooks/openapi.json` and `messaging-webhooks/schemas/json/<name>.json`,
 * scripts/build-openapi.mjs); the CLI (`messaging-webhooks openapi`) and the emulator
 * (`GET /_emulator/openapi.json`) print and serve the same document.
 *
 * @packageDocumentation
 */
export {
  createOpenApiDocument,
  servedOpenApiDocument,
  INTERFACE_VERSION,
  type OpenApiDocument,
  type OpenApiDocumentOptions,
  type OpenApiServerOptions,
} from './document.js';
export { jsonSchemaFiles, standaloneJsonSchema, type JsonSchema } from './json-schema.js';
export { errorResponseSchema } from '../contract/index.js';
