import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fileURLToPath(new URL('./hovers.ts', import.meta.url));

describe('payload types in hovers', () => {
  it('prints each narrowed payload under its exported name', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      `${root}tsconfig.json`,
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
        },
      },
    )!;
    const program = ts.createProgram([fixture], { ...config.options, noEmit: true });
    const checker = program.getTypeChecker();
    const shown: [string, string][] = [];
    const visit = (node: ts.Node): void => {
      if (
        ts.isVariableDeclaration(node) &&
        ts.isIdentifier(node.name) &&
        node.name.text.startsWith('hover_')
      ) {
        shown.push([
          node.name.text.slice('hover_'.length),
          checker.typeToString(checker.getTypeAtLocation(node.name)),
        ]);
      }
      ts.forEachChild(node, visit);
    };
    visit(program.getSourceFile(fixture)!);
    expect(shown.length).toBe(8);
    expect(shown.map(([name]) => [name, name])).toEqual(shown);
  });
});
