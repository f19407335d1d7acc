// API reports, one per entry: every subpath export of package.json with types (the root, schemas,
// emulator, ...) gets its own api-extractor run, its report in etc/ (the root's
// etc/messaging-webhooks.api.md, a subpath's etc/<subpath>.api.md). The entries come from
// package.json's "exports", so a new subpath is reported without editing this file.
//
//   node scripts/api-reports.mjs            check (CI): fails when a report differs from the build
//   node scripts/api-reports.mjs --local    update the reports (npm run api:update)
//   node scripts/api-reports.mjs client     only the named entries ('.' is the root)
//
// Runs after `npm run build` (it reads dist/*.d.ts). The settings shared by every entry, messages
// included, are api-extractor.json's; this script sets only the entry point and the report name.
// One TypeScript program serves every entry (CompilerState with all entry points), so the checks
// cost one compile, not one per entry.
//
// ae-forgotten-export is an error (api-extractor.json): a type a user meets in an entry's
// declarations must be importable. api-extractor checks one entry at a time, so a type exported by
// another entry of this package (the root's WebhookPipelineOptions, met in messaging-webhooks/hono)
// counts as importable here: the one declaration of that name in dist/ is what that entry exports.
// A name declared twice in dist/ is not resolved by name and stays an error.
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';

// The TypeScript api-extractor bundles: its program's syntax kinds are that version's.
const ts = createRequire(createRequire(import.meta.url).resolve('@microsoft/api-extractor'))('typescript');

const root = join(import.meta.dirname, '..');
const packageJsonFullPath = join(root, 'package.json');
const configPath = join(root, 'api-extractor.json');
const pkg = JSON.parse(readFileSync(packageJsonFullPath, 'utf8'));

const args = process.argv.slice(2);
const localBuild = args.includes('--local');
const only = args.filter((arg) => !arg.startsWith('--'));

/** Every subpath export with ESM types: [entry name, declaration file], the root first. */
const entries = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === 'object' && typeof target.import?.types === 'string')
  .map(([subpath, target]) => [subpath === '.' ? '.' : subpath.slice(2), join(root, target.import.types)]);
const unknown = only.filter((name) => !entries.some(([entry]) => entry === name));
if (unknown.length > 0) {
  console.error(
    `api-reports: no such entry: ${unknown.join(', ')} (entries: ${entries.map(([e]) => e).join(', ')})`,
  );
  process.exit(2);
}
const selected = only.length === 0 ? entries : entries.filter(([entry]) => only.includes(entry));

const base = ExtractorConfig.loadFile(configPath);
function configOf(entry, declarations) {
  return ExtractorConfig.prepare({
    configObject: {
      ...base,
      mainEntryPointFilePath: declarations,
      apiReport: { ...base.apiReport, reportFileName: entry === '.' ? pkg.name : entry },
    },
    configObjectFullPath: configPath,
    packageJsonFullPath,
  });
}

const configs = selected.map(([entry, declarations]) => [entry, configOf(entry, declarations)]);
const compilerState = CompilerState.create(configs[0][1], {
  additionalEntryPoints: configs.map(([, config]) => config.mainEntryPointFilePath),
});

/**
 * The declarations of dist/ by top-level name, and for each declaration the entries that export it
 * (every entry's, not only the selected ones).
 */
function exportIndex(namesPerEntry) {
  const program = compilerState.program;
  const checker = program.getTypeChecker();
  const dist = join(root, 'dist') + sep;
  const byName = new Map();
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(dist)) continue;
    for (const statement of file.statements) {
      const names = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((d) => d.name)
        : [statement.name];
      for (const name of names) {
        if (name === undefined || !ts.isIdentifier(name)) continue;
        byName.set(name.text, [...(byName.get(name.text) ?? []), statement]);
      }
    }
  }
  const exportedBy = new Map();
  for (const [entry, declarations] of entries) {
    const file = program.getSourceFile(declarations);
    const module = file && checker.getSymbolAtLocation(file);
    if (module === undefined) continue;
    const exported = checker.getExportsOfModule(module);
    namesPerEntry.set(entry, exported.length);
    for (let symbol of exported) {
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      for (const declaration of symbol.declarations ?? []) {
        const statement = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
        exportedBy.set(statement, [...(exportedBy.get(statement) ?? []), entry]);
      }
    }
  }
  /** The entries exporting the one declaration named `name` in dist/; empty when none or ambiguous. */
  return (name) => {
    const found = byName.get(name) ?? [];
    return found.length === 1 ? (exportedBy.get(found[0]) ?? []) : [];
  };
}
/** How many names each entry exports, for the summary line. */
const namesPerEntry = new Map();
const importableFrom = exportIndex(namesPerEntry);

const failed = [];
for (const [entry, config] of configs) {
  const result = Extractor.invoke(config, {
    localBuild,
    compilerState,
    messageCallback(message) {
      // Warnings and errors, one line each, prefixed by the entry they came from; nothing else.
      message.handled = true;
      if (message.messageId === 'ae-forgotten-export') {
        const name = /"([^"]+)"/.exec(message.text)?.[1];
        if (name !== undefined && importableFrom(name).length > 0) message.logLevel = ExtractorLogLevel.None;
      }
      if (message.logLevel !== ExtractorLogLevel.Warning && message.logLevel !== ExtractorLogLevel.Error)
        return;
      const where = message.sourceFilePath
        ? ` (${relative(root, message.sourceFilePath)}:${message.sourceFileLine})`
        : '';
      console.error(`[${entry}] ${message.logLevel} ${message.messageId}: ${message.text}${where}`);
    },
  });
  if (!result.succeeded) failed.push(entry);
  if (result.apiReportChanged) {
    console.error(
      localBuild
        ? `[${entry}] updated etc/${entry === '.' ? pkg.name : entry}.api.md`
        : `[${entry}] the API report differs from the build: run npm run api:update and review the diff`,
    );
  }
}
const sizes = configs.map(([entry]) => `${entry} ${namesPerEntry.get(entry)}`).join(', ');
console.log(
  `api-reports: ${configs.length} entries (names: ${sizes}), ${failed.length === 0 ? 'all pass' : `failed: ${failed.join(', ')}`}`,
);
if (failed.length > 0) process.exitCode = 1;
