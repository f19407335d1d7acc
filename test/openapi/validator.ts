import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from '../../src/openapi/index.js';

// ajv-formats is CommonJS with `exports.default`: under TypeScript's NodeNext the default import is
// the module object, whose `default` is the plugin.
const addFormats = addFormatsModule.default;

/**
 * ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1 schema objects) in its strictest mode:
 * an unknown keyword or a keyword on the wrong type throws at compile time, so the generated
 * schemas are also checked for being clean. Union types (`type: ['string', 'null']`, how zod
 * writes nullable fields) are standard 2020-12 and allowed.
 */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/**
 * Validates values against schemas of an OpenAPI document: each schema is compiled beside the
 * document's components, so `#/components/schemas/<name>` references resolve.
 */
export function documentValidator(document: OpenApiDocument): (schema: object) => ValidateFunction {
  const ajv = strictAjv();
  // `components` sits beside the schema being compiled only to resolve its $refs.
  ajv.addKeyword('components');
  const compiled = new Map<string, ValidateFunction>();
  return (schema) => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile({ components: { schemas: document.components.schemas }, ...schema });
      compiled.set(key, validate);
    }
    return validate;
  };
}

/** ajv's errors of the last call, one line. */
export function errorsOf(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
}
